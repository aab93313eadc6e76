/**
 * What a checkout may hold, decided before any stock is touched: the event
 * must be selling, every line must name a purchasable, unseated ticket type
 * of the event (and a pool when the type sells from several), and
 * quantities must respect the type's per-order limits. The first rule that
 * fails decides the error, in this order (docs/decisions.md): the event;
 * then each line in request order: ticket type, pool, seating, sales
 * window, maximum, minimum. Availability is checked by the hold itself.
 */
import { ApiError, notFound } from '@partner-api/shared';
import type { EventRow, TicketTypeRow } from '../storage/catalog-repository';
import { eventStatus, ticketTypeStatus } from './catalog-view';

export interface RequestedLine {
  ticketTypeId: string;
  quantity: number;
  poolId?: string | undefined;
}

export interface PricedLine {
  ticketTypeId: string;
  poolId: string;
  name: string;
  quantity: number;
  unitPriceCents: bigint;
  unitBookingFeeCents: bigint;
  totalCents: bigint;
}

export interface CheckoutPlan {
  lines: PricedLine[];
  /** Tickets per pool, merged over lines that share a pool. */
  perPool: Map<string, number>;
}

const item = (index: number, field: string) => `items[${index}].${field}`;

/** Lines for the same ticket type and pool become one, keeping the first one's position. */
function merge(lines: RequestedLine[]): Array<RequestedLine & { index: number }> {
  const merged = new Map<string, RequestedLine & { index: number }>();
  lines.forEach((line, index) => {
    const key = `${line.ticketTypeId}/${line.poolId ?? ''}`;
    const existing = merged.get(key);
    if (existing) existing.quantity += line.quantity;
    else merged.set(key, { ...line, index });
  });
  return [...merged.values()];
}

export function planCheckout(event: EventRow, types: TicketTypeRow[], requested: RequestedLine[], now: Date): CheckoutPlan {
  const onSaleAt = event.on_sale_at;
  if (eventStatus(event, now) !== 'published' || (onSaleAt && onSaleAt.getTime() > now.getTime())) {
    throw new ApiError('event_not_on_sale', 'This event is not selling tickets right now.', 'event_id');
  }
  const typesById = new Map(types.filter((type) => type.event_id === event.id).map((type) => [type.id, type]));
  const lines: PricedLine[] = [];
  const perPool = new Map<string, number>();

  for (const line of merge(requested)) {
    const type = typesById.get(line.ticketTypeId);
    if (!type) throw notFound('ticket type for this event', item(line.index, 'ticket_type_id'));

    let poolId: string;
    if (line.poolId !== undefined) {
      if (!type.pool_ids.includes(line.poolId)) {
        throw new ApiError('parameter_invalid', `Ticket type ${type.id} does not sell from pool ${line.poolId}.`, item(line.index, 'pool_id'));
      }
      poolId = line.poolId;
    } else if (type.pool_ids.length === 1) {
      poolId = type.pool_ids[0]!;
    } else {
      throw new ApiError('parameter_missing', `Ticket type ${type.id} sells from several pools: say which with pool_id.`, item(line.index, 'pool_id'));
    }

    if (type.seated) {
      throw new ApiError('seat_selection_required', `${type.name} is seated: seats are chosen on the hosted checkout.`, item(line.index, 'ticket_type_id'));
    }
    // Stock is the hold's business: only the type's own state decides here.
    const status = ticketTypeStatus(type, event, null, now);
    if (status !== 'on_sale') {
      throw new ApiError('ticket_type_unavailable', `${type.name} is not on sale (${status}).`, item(line.index, 'ticket_type_id'));
    }
    if (line.quantity > type.max_per_order) {
      throw new ApiError('exceeds_max_per_order', `At most ${type.max_per_order} ${type.name} tickets per order.`, item(line.index, 'quantity'));
    }
    if (line.quantity < type.min_per_order) {
      throw new ApiError('parameter_invalid', `At least ${type.min_per_order} ${type.name} tickets per order.`, item(line.index, 'quantity'), 422);
    }

    const unitPriceCents = BigInt(type.price_cents);
    lines.push({
      ticketTypeId: type.id,
      poolId,
      name: type.name,
      quantity: line.quantity,
      unitPriceCents,
      unitBookingFeeCents: BigInt(type.booking_fee_cents),
      totalCents: unitPriceCents * BigInt(line.quantity),
    });
    perPool.set(poolId, (perPool.get(poolId) ?? 0) + line.quantity);
  }
  return { lines, perPool };
}
