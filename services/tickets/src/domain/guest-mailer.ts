/**
 * Emailing a comp guest their ticket. Mail delivery is the one truly
 * external system of the tickets service, so it sits behind this
 * interface: `src/adapters/` has the SMTP adapter (nodemailer, SMTP_URL)
 * and the log adapter used locally by default (GUEST_MAILER). What a
 * message says is decided here, the same for every adapter.
 */
export interface GuestEmail {
  to: string;
  /** The guest's name as issued, if any. */
  toName: string | null;
  subject: string;
  text: string;
  /** Stable per ticket (`<ticket-<id>@…>`), so a repeat of an at-least-once send can be recognised. */
  messageId: string;
}

export interface GuestMailer {
  /** Resolves once the mail system accepted the message; throws to have it retried later. */
  send(email: GuestEmail): Promise<void>;
  close(): Promise<void>;
}

export interface TicketForEmail {
  id: string;
  barcode: string;
  ticketTypeName: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  eventTitle: string;
  eventStartsAt: Date;
}

/** The guest's message: event, ticket type, ticket id and the barcode the door scans. */
export function composeGuestEmail(ticket: TicketForEmail, messageIdDomain: string): GuestEmail {
  const name = [ticket.firstName, ticket.lastName].filter(Boolean).join(' ') || null;
  const starts = ticket.eventStartsAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    to: ticket.email,
    toName: name,
    subject: `Your ticket to ${ticket.eventTitle}`,
    text: [
      `Hi ${ticket.firstName ?? 'there'},`,
      '',
      `You have a complimentary ${ticket.ticketTypeName} ticket to ${ticket.eventTitle} (starts ${starts}).`,
      '',
      `Ticket: ${ticket.id}`,
      `Barcode: ${ticket.barcode}`,
      '',
      'Show this barcode at the door. It admits one person once.',
    ].join('\n'),
    messageId: `<ticket-${ticket.id}@${messageIdDomain}>`,
  };
}
