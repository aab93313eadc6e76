/**
 * Sends the queued comp guest emails (D61). Each ticket's email row is
 * written in the transaction that issues the ticket, so a process that dies
 * right after issuing loses no email: this loop sends whatever is due, on
 * any tickets process. A row is claimed with a lease (FOR UPDATE SKIP
 * LOCKED, then `next_attempt_at` pushed ahead), sent, and marked `sent`; a
 * failure is retried on RETRY_SCHEDULE_MS and given up (`failed`) after
 * its last step. Delivery is at least once: a sender that dies between the
 * mail system's acceptance and marking the row sends it again, with the
 * same Message-ID. A ticket that is no longer valid by then (voided,
 * refunded) is skipped.
 */
import type { Logger, Mailer } from '@partner-api/shared';
import type { CompRepository } from '../storage/comp-repository';
import { composeGuestEmail } from './guest-mailer';

/** Wait after the 1st, 2nd, … failed attempt; after the last, the email is given up. */
export const RETRY_SCHEDULE_MS = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000];
/** How long a claimed email stays invisible to other senders while it is being sent. */
const LEASE_MS = 60_000;

export class GuestEmails {
  constructor(
    private readonly comps: CompRepository,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly messageIdDomain: string,
  ) {}

  /** Sends up to `limit` due emails; returns how many were sent. */
  async sendDue(limit = 50): Promise<number> {
    const due = await this.comps.claimDueEmails(limit, LEASE_MS);
    let sent = 0;
    for (const email of due) {
      const ticket = await this.comps.ticket(email.ticket_id);
      if (!ticket || (ticket.status !== 'valid' && ticket.status !== 'checked_in') || !ticket.attendee_email) {
        await this.comps.emailSkipped(email.ticket_id, `ticket is ${ticket?.status ?? 'missing'}`);
        continue;
      }
      const message = composeGuestEmail(
        {
          id: ticket.id,
          barcode: ticket.barcode,
          ticketTypeName: ticket.ticket_type_name,
          firstName: ticket.attendee_first_name,
          lastName: ticket.attendee_last_name,
          email: ticket.attendee_email,
          eventTitle: email.event_title,
          eventStartsAt: email.event_starts_at,
        },
        this.messageIdDomain,
      );
      try {
        await this.mailer.send(message);
        await this.comps.emailSent(email.ticket_id);
        sent += 1;
      } catch (error) {
        const retryIn = RETRY_SCHEDULE_MS[email.attempts - 1] ?? null;
        this.logger.warn({ err: error, ticketId: email.ticket_id, attempt: email.attempts, givenUp: retryIn === null }, 'guest email not sent');
        await this.comps.emailFailed(email.ticket_id, error instanceof Error ? error.message : String(error), retryIn);
      }
    }
    return sent;
  }
}
