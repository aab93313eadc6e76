/**
 * What a comp batch may take, decided before any stock is touched. Comps
 * are the organiser's own guest list, so the checkout's sales rules do not
 * apply: drafts, hidden types, types outside their sales window, seated
 * types and per-order limits all take comps. What does apply (in this
 * order, docs/decisions.md D55): the event must still be ahead (not
 * cancelled, not ended: `422 event_not_on_sale`); the ticket type must be
 * the event's (`404 resource_missing`); a type sold from several pools
 * needs `pool_id` (`400 parameter_missing`), and a pool it does not sell
 * from is `400 parameter_invalid`. How many guests get a ticket is
 * decided by what is left in the pool (compGrant).
 */
import { ApiError, notFound } from '@partner-api/shared';
import type { EventRow, TicketTypeRow } from '../storage/catalog-repository';
import { eventStatus } from './catalog-view';

export interface CompRequest {
  ticketTypeId: string;
  poolId?: string | undefined;
}

export interface CompPlan {
  type: TicketTypeRow;
  poolId: string;
}

export function planComp(event: EventRow, types: TicketTypeRow[], request: CompRequest, now: Date): CompPlan {
  const status = eventStatus(event, now);
  if (status === 'cancelled' || status === 'ended') {
    throw new ApiError('event_not_on_sale', `This event is ${status}: it takes no more comps.`, 'event_id');
  }
  const type = types.find((candidate) => candidate.id === request.ticketTypeId && candidate.event_id === event.id);
  if (!type) throw notFound('ticket type for this event', 'ticket_type_id');
  if (request.poolId !== undefined) {
    if (!type.pool_ids.includes(request.poolId)) {
      throw new ApiError('parameter_invalid', `Ticket type ${type.id} does not sell from pool ${request.poolId}.`, 'pool_id');
    }
    return { type, poolId: request.poolId };
  }
  if (type.pool_ids.length === 1) return { type, poolId: type.pool_ids[0]! };
  throw new ApiError('parameter_missing', `Ticket type ${type.id} sells from several pools: say which with pool_id.`, 'pool_id');
}

/**
 * How many of `requested` guests get a ticket when `available` are left
 * (null: an uncapped pool). The first guests in request order get them; the
 * rest fail with `exceeds_stock`. None left at all refuses the whole batch
 * with `422 exceeds_availability` (D56).
 */
export function compGrant(requested: number, available: number | null): number {
  const granted = available === null ? requested : Math.min(requested, Math.max(0, available));
  if (granted === 0) throw new ApiError('exceeds_availability', 'No tickets are left in this pool for comps.', 'attendees');
  return granted;
}
