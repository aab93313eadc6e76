/** The words a ticket is shown with on the ticket page, in its PDF and on its Wallet pass: one wording everywhere. */
import type { EventDetails, PageTicket } from '../domain/ticket-pages';
import { localStart } from './pages';

/** The start on the venue's clock, its zone named twice: the abbreviation and the IANA name ("… 8:00 pm AEDT (Australia/Sydney)"). */
export function eventTime(event: Pick<EventDetails, 'startsAt' | 'timezone'>): string {
  return `${localStart(event.startsAt, event.timezone)} (${event.timezone})`;
}

/** "General Admission" or "Reserved · Seat B-12". */
export function seatLine(ticket: Pick<PageTicket, 'ticketTypeName' | 'seatLabel'>): string {
  return ticket.seatLabel ? `${ticket.ticketTypeName} · Seat ${ticket.seatLabel}` : ticket.ticketTypeName;
}

export function attendeeName(ticket: Pick<PageTicket, 'attendee'>): string {
  return [ticket.attendee?.firstName, ticket.attendee?.lastName].filter(Boolean).join(' ');
}

/** Why a ticket shows no code, or undefined when it has one to show. */
export function withoutCodeReason(ticket: Pick<PageTicket, 'status'>): string | undefined {
  switch (ticket.status) {
    case 'refunded':
      return 'Refunded: this ticket no longer admits anyone.';
    case 'void':
      return 'Void: this ticket no longer admits anyone.';
    default:
      return undefined;
  }
}
