/**
 * Sends the emails of waiting-list offers (D257). An offer's email becomes
 * due in the transaction that records its tickets as taken, so an offer is
 * never left unannounced by a process that dies: this loop, in every
 * inventory process, claims what is due with a lease, sends it and marks it
 * sent. A failure is retried after RETRY_SCHEDULE_MS while the offer lasts;
 * an offer that ended (lapsed or bought) is no longer due. At least once,
 * with the same Message-ID on a repeat.
 */
import type { Logger, Mailer } from '@partner-api/shared';
import type { WaitlistEntries } from '../storage/waitlist-entries';
import { composeOfferEmail } from './offer-email';

/** Wait after the 1st, 2nd, … failed attempt; then every last step until the offer ends. */
export const RETRY_SCHEDULE_MS = [10_000, 30_000, 60_000, 2 * 60_000];
/** How long a claimed email stays invisible to other senders while it is being sent. */
const LEASE_MS = 60_000;

export class OfferEmails {
  constructor(
    private readonly entries: WaitlistEntries,
    private readonly mailer: Mailer,
    private readonly settings: { checkoutBaseUrl: string; messageIdDomain: string },
    private readonly logger: Logger,
  ) {}

  /** Sends up to `limit` due emails; returns how many were sent. */
  async sendDue(limit = 50): Promise<number> {
    let sent = 0;
    for (const due of await this.entries.claimDueEmails(limit, LEASE_MS)) {
      const message = composeOfferEmail(
        {
          holdId: due.hold_id,
          organisationId: due.organisation_id,
          email: due.email,
          quantity: due.offered_quantity,
          ticketTypeName: due.ticket_type_name,
          eventTitle: due.event_title,
          eventStartsAt: due.event_starts_at,
          expiresAt: due.expires_at,
        },
        this.settings.checkoutBaseUrl,
        this.settings.messageIdDomain,
      );
      try {
        await this.mailer.send(message);
        await this.entries.emailSent(due.id);
        sent += 1;
      } catch (error) {
        const retryInMs = RETRY_SCHEDULE_MS[Math.min(due.email_attempts, RETRY_SCHEDULE_MS.length) - 1]!;
        this.logger.warn({ err: error, entryId: due.id, attempts: due.email_attempts }, 'could not send a waiting-list offer email');
        await this.entries.emailFailed(due.id, error instanceof Error ? error.message : String(error), retryInMs);
      }
    }
    return sent;
  }
}
