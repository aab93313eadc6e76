/**
 * Sends the queued ticket emails (D410–D416). A row is written in the
 * transaction that makes the reason to mail (an order's `order.completed`
 * read from Kafka, a transfer, a resend), so a process that dies after that
 * commit loses no email: this loop, on any tickets process, claims due rows
 * with a lease (FOR UPDATE SKIP LOCKED, then `next_attempt_at` pushed
 * ahead), composes each from the tickets as they are now, sends it and
 * marks it `sent`. Delivery is at least once: a sender that dies between
 * the mail system's acceptance and the mark sends it again with the same
 * Message-ID, which lets the receiving side drop the repeat. A failure is
 * retried on the guest emails' schedule; an address the mail system refuses
 * for good (or that is no address at all) is `failed` at once, with the
 * reason, for the dashboard to show. Nothing here touches the order.
 */
import {
  ApiError,
  operatorContext,
  PermanentMailFailure,
  ticketHolderPageUrl,
  ticketPageUrl,
  type Logger,
  type MailMessage,
  type Mailer,
} from '@partner-api/shared';
import type { MailRepository, TicketMailRow } from '../storage/mail-repository';
import type { TicketRepository, TicketRow } from '../storage/ticket-repository';
import type { InventoryClient } from './event-directory';
import { RETRY_SCHEDULE_MS } from './guest-emails';
import { composeOrderMail, composeTransferMovedMail, composeTransferReceivedMail, type MailEvent } from './ticket-mail-content';

/** How long a claimed email stays invisible to other senders while it is sent. */
export const DEFAULT_MAIL_LEASE_MS = 60_000;

/** What an address must look like to be worth handing to the mail system. */
const MAILABLE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/;

export interface TicketMailSettings {
  /** The hosted pages' public address, where the ticket pages are. */
  pagesBaseUrl: string;
  ticketPageSecret: string;
  messageIdDomain: string;
  leaseMs?: number;
}

/** Why a row is not sent after all (its tickets are gone or moved on). */
class NothingToSend extends Error {}

const holds = (ticket: TicketRow) => ticket.status === 'valid' || ticket.status === 'checked_in';

export class TicketMails {
  constructor(
    private readonly mails: MailRepository,
    private readonly tickets: TicketRepository,
    private readonly inventory: Pick<InventoryClient, 'getEvent'>,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
    private readonly settings: TicketMailSettings,
  ) {}

  /** Sends up to `limit` due emails; returns how many were sent. */
  async sendDue(limit = 20): Promise<number> {
    const due = await this.mails.claimDue(limit, this.settings.leaseMs ?? DEFAULT_MAIL_LEASE_MS);
    let sent = 0;
    for (const mail of due) {
      try {
        if (!MAILABLE.test(mail.recipient)) throw new PermanentMailFailure(`not an email address: ${JSON.stringify(mail.recipient.slice(0, 100))}`);
        await this.mailer.send(await this.compose(mail));
        await this.mails.sent(mail.id);
        sent += 1;
      } catch (error) {
        await this.recordFailure(mail, error);
      }
    }
    return sent;
  }

  private async recordFailure(mail: TicketMailRow, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof NothingToSend) {
      await this.mails.skipped(mail.id, reason);
      return;
    }
    const retryIn = error instanceof PermanentMailFailure ? null : (RETRY_SCHEDULE_MS[mail.attempts - 1] ?? null);
    this.logger.warn({ err: error, mailId: mail.id, kind: mail.kind, attempt: mail.attempts, givenUp: retryIn === null }, 'ticket email not sent');
    await this.mails.failed(mail.id, reason, retryIn);
  }

  private async compose(mail: TicketMailRow): Promise<MailMessage> {
    const organisationId = Number(mail.organisation_id);
    // The Message-ID is the row's: every attempt of one row is recognisably the same message.
    const messageId = `<mail-${mail.id}.${mail.kind}@${this.settings.messageIdDomain}>`;
    const to = { email: mail.recipient, name: mail.recipient_name };
    if (mail.kind === 'order' || mail.kind === 'order_resend') {
      // Only the buyer's own tickets: one transferred away belongs to its new attendee, code and all (D413).
      const buyer = mail.recipient.toLowerCase();
      const tickets = (await this.tickets.forOrders(organisationId, [mail.order_id!])).filter((ticket) => holds(ticket) && ticket.attendee_email?.toLowerCase() === buyer);
      if (tickets.length === 0) throw new NothingToSend('the order holds no valid ticket of its buyer');
      const event = await this.event(organisationId, tickets[0]!.event_id, mail);
      const pageUrl = ticketPageUrl({ baseUrl: this.settings.pagesBaseUrl, orderId: mail.order_id!, secret: this.settings.ticketPageSecret });
      return composeOrderMail({ to, orderId: mail.order_id!, event, tickets, ticketPageUrl: pageUrl, messageId });
    }
    const ticket = await this.tickets.find(organisationId, mail.ticket_id!);
    if (!ticket) throw new NothingToSend('the ticket is missing');
    const event = await this.event(organisationId, ticket.event_id, mail);
    if (mail.kind === 'transfer_moved') return composeTransferMovedMail({ to, ticket, event, messageId });
    // A later transfer (or a refund) made this one's code moot; that transfer mails its own holder.
    if (!holds(ticket) || ticket.barcode !== mail.barcode) throw new NothingToSend('the ticket has moved on since this transfer');
    const pageUrl = ticketHolderPageUrl({ baseUrl: this.settings.pagesBaseUrl, organisationId: mail.organisation_id, ticketId: ticket.id, attendeeEmail: ticket.attendee_email!, secret: this.settings.ticketPageSecret });
    return composeTransferReceivedMail({ ticket, event, ticketPageUrl: pageUrl, messageId });
  }

  private async event(organisationId: number, eventId: string, mail: TicketMailRow): Promise<MailEvent> {
    const ctx = operatorContext(organisationId, `mail-${mail.id}`);
    const event = await this.inventory.getEvent({ idOrSlug: eventId }, ctx).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'resource_missing') throw new NothingToSend('the event is gone');
      throw error;
    });
    return {
      id: event.id.toString(),
      title: event.title,
      startsAt: event.startsAt,
      endsAt: event.endsAt ?? null,
      timezone: event.timezone,
      doors: event.doors ?? null,
      venue: event.venue ? { name: event.venue.name, address: event.venue.address?.formatted ?? '' } : null,
    };
  }
}
