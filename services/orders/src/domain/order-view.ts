/** A stored order and its tickets as the API's order object. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { customerMessage, formatCents, formatTimestamp, type gen } from '@partner-api/shared';
import type { OrderRow } from '../storage/order-repository';

export type OrderInit = MessageInitShape<typeof gen.orders.OrderSchema>;
export type TicketInit = MessageInitShape<typeof gen.tickets.TicketSchema>;

export function orderView(row: OrderRow, tickets: TicketInit[]): OrderInit {
  return {
    object: 'order',
    id: row.id,
    eventId: BigInt(row.event_id),
    status: row.status,
    customer: customerMessage(row.customer),
    currency: 'AUD',
    subtotal: formatCents(BigInt(row.subtotal_cents)),
    totalFees: formatCents(BigInt(row.total_fees_cents)),
    discount: formatCents(BigInt(row.discount_cents)),
    total: formatCents(BigInt(row.total_cents)),
    refundedAmount: formatCents(BigInt(row.refunded_cents)),
    paymentMethod: row.payment_method,
    checkoutSessionId: row.checkout_session_id ?? undefined,
    salesChannel: row.sales_channel,
    channelOrigin: row.channel_origin ?? undefined,
    metadata: row.metadata,
    tickets,
    createdAt: formatTimestamp(row.created_at),
    completedAt: formatTimestamp(row.completed_at),
    updatedAt: formatTimestamp(row.updated_at),
  };
}
