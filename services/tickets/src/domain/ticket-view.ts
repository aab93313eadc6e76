/** A stored ticket as the API's ticket object. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { formatCents, formatOptionalTimestamp, formatTimestamp, type gen } from '@partner-api/shared';
import type { TicketRow } from '../storage/ticket-repository';

export type TicketInit = MessageInitShape<typeof gen.tickets.TicketSchema>;

export function ticketView(row: TicketRow): TicketInit {
  return {
    object: 'ticket',
    id: BigInt(row.id),
    barcode: row.barcode,
    orderId: row.order_id ?? undefined,
    eventId: BigInt(row.event_id),
    ticketTypeId: BigInt(row.ticket_type_id),
    poolId: BigInt(row.pool_id),
    ticketTypeName: row.ticket_type_name,
    attendee: {
      firstName: row.attendee_first_name ?? undefined,
      lastName: row.attendee_last_name ?? undefined,
      email: row.attendee_email ?? undefined,
    },
    price: formatCents(BigInt(row.price_cents)),
    status: row.status,
    comp: row.comp,
    seatLabel: row.seat_label ?? undefined,
    checkedInAt: formatOptionalTimestamp(row.checked_in_at),
    createdAt: formatTimestamp(row.created_at),
    updatedAt: formatTimestamp(row.updated_at),
  };
}
