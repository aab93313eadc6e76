/**
 * Emails an organisation's owners and admins when one of its webhook
 * endpoints is disabled (the spec's rule). The webhooks service records a
 * notice in the same transaction that disables the endpoint; this loop
 * claims notices with a lease, mails, and marks them sent. A process that
 * dies mid-way leaves the lease to run out and the notice is mailed again
 * (at least once; each email's Message-ID is stable per notice and
 * member, so a repeat can be recognised).
 */
import type { Logger, MailMessage, Mailer } from '@partner-api/shared';
import type { Member } from '../storage/member-repository';
import type { MailContext } from './member-emails';
import type { Role } from './roles';

export interface DisableNotice {
  id: bigint;
  organisationId: number;
  endpointId: bigint;
  url: string;
  reason: string;
  disabledAt: string;
}

/** Where notices come from (the webhooks service, over gRPC). */
export interface DisableNoticeQueue {
  claim(limit: number, leaseSeconds: number): Promise<DisableNotice[]>;
  complete(id: bigint): Promise<void>;
}

export interface NoticeRecipients {
  withRoles(organisationId: number, roles: readonly Role[]): Promise<Member[]>;
}

const NOTIFIED_ROLES: readonly Role[] = ['owner', 'admin'];
const BATCH = 20;
const LEASE_SECONDS = 120;

const REASONS: Record<string, string> = {
  consecutive_failures: 'its last 50 deliveries in a row failed',
  failing_for_3_days: 'it has been failing for 3 days (with at least 5 failed deliveries in a row)',
};

export function endpointDisabledEmail(ctx: MailContext, to: Member, notice: DisableNotice): MailMessage {
  const page = `${ctx.baseUrl}/webhooks/${notice.endpointId}`;
  return {
    to: to.email,
    toName: to.name,
    subject: `Webhook endpoint disabled: ${notice.url}`,
    text: [
      `Hello ${to.name},`,
      '',
      `We disabled your webhook endpoint ${notice.url} (id ${notice.endpointId}) at ${notice.disabledAt}, because ${REASONS[notice.reason] ?? notice.reason}.`,
      'No deliveries are sent to it while it is disabled. The events are kept.',
      '',
      'To recover:',
      `1. Look at the failed deliveries and their reasons: ${page}`,
      '2. Fix the receiver so it answers 2xx within the timeout.',
      '3. Re-enable the endpoint on that page (or PATCH /v1/webhook_endpoints/{id} with "enabled": true).',
      `4. Use "Recover" there to resend every delivery that failed or was missed since before ${notice.disabledAt}.`,
      '',
      'You get this email as an owner or admin of the organisation.',
    ].join('\n'),
    messageId: `<endpoint-disabled-${notice.id}-${to.id}@${ctx.domain}>`,
  };
}

export class DisableNoticeMailer {
  constructor(
    private readonly queue: DisableNoticeQueue,
    private readonly recipients: NoticeRecipients,
    private readonly mailer: Mailer,
    private readonly mail: MailContext,
    private readonly logger: Logger,
  ) {}

  /** Mails every notice it can claim now; returns how many it finished. */
  async run(): Promise<number> {
    let finished = 0;
    for (;;) {
      const notices = await this.queue.claim(BATCH, LEASE_SECONDS);
      for (const notice of notices) {
        const members = await this.recipients.withRoles(notice.organisationId, NOTIFIED_ROLES);
        for (const member of members) await this.mailer.send(endpointDisabledEmail(this.mail, member, notice));
        if (members.length === 0) this.logger.warn({ organisationId: notice.organisationId, endpointId: String(notice.endpointId) }, 'endpoint disabled, but the organisation has no owner or admin to email');
        await this.queue.complete(notice.id);
        finished += 1;
      }
      if (notices.length < BATCH) return finished;
    }
  }
}
