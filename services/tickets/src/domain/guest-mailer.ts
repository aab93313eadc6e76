/**
 * What a comp guest's email says. It goes out through the shared Mailer
 * (SMTP or log, chosen by GUEST_MAILER), the same for every adapter.
 */
import type { MailMessage } from '@partner-api/shared';

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
export function composeGuestEmail(ticket: TicketForEmail, messageIdDomain: string): MailMessage {
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
