/**
 * Who may join a waiting list, and who gets the tickets that come back.
 * Joining is for tickets that cannot be bought now: the event must be
 * selling (published, not ended), the ticket type public and not past its
 * sales window, its pool capped, and the quantity within the type's
 * per-order limits. While the pool has enough left the customer is told
 * to buy instead (D251). Offers go to waiting entries in join order, each
 * up to what it asked for (D252).
 */
import { ApiError, notFound } from '@partner-api/shared';
import { z } from 'zod';
import type { EventRow, PoolRow, TicketTypeRow } from '../storage/catalog-repository';
import { eventStatus, ticketTypeStatus } from './catalog-view';

export interface JoinRequest {
  ticketTypeId: string;
  email: string;
  quantity: number;
}

export interface PlannedJoin {
  poolId: string;
  /** Trimmed; compared case-insensitively for one live entry per email and event. */
  email: string;
  quantity: number;
}

/** The longest address SMTP carries (RFC 5321). */
const MAX_EMAIL_LENGTH = 254;
const emailSchema = z.string().trim().max(MAX_EMAIL_LENGTH).pipe(z.email());

export function planJoin(event: EventRow, types: TicketTypeRow[], pools: PoolRow[], request: JoinRequest, available: Map<string, number | null>, now: Date): PlannedJoin {
  const status = eventStatus(event, now);
  if (status !== 'published') throw new ApiError('event_not_on_sale', 'This event has no waiting list.', 'event_id');
  const type = types.find((candidate) => candidate.id === request.ticketTypeId && candidate.event_id === event.id && !candidate.hidden);
  if (!type) throw notFound('ticket type for this event', 'ticket_type_id');
  const email = emailSchema.safeParse(request.email);
  if (!email.success) throw new ApiError('parameter_invalid', 'Enter a valid email address.', 'email');
  if (!Number.isInteger(request.quantity) || request.quantity < type.min_per_order) {
    throw new ApiError('parameter_invalid', `Ask for at least ${type.min_per_order} ticket${type.min_per_order === 1 ? '' : 's'}.`, 'quantity');
  }
  if (request.quantity > type.max_per_order) throw new ApiError('exceeds_max_per_order', `At most ${type.max_per_order} tickets per order.`, 'quantity');

  // The type's default pool, as a checkout without pool_id would use.
  const pool = pools.find((candidate) => candidate.id === type.pool_ids[0]);
  if (!pool || pool.capacity === null) throw new ApiError('parameter_invalid', 'This ticket type never sells out; buy tickets instead.', 'ticket_type_id');
  const left = available.get(pool.id) ?? 0;
  const typeStatus = ticketTypeStatus(type, event, left, now);
  if (typeStatus === 'not_yet_on_sale' || typeStatus === 'sale_ended') {
    throw new ApiError('ticket_type_unavailable', `${type.name} is not on sale, so it has no waiting list.`, 'ticket_type_id');
  }
  if (typeStatus === 'on_sale' && left >= request.quantity) {
    throw new ApiError('parameter_invalid', `${left} ticket${left === 1 ? ' is' : 's are'} on sale now: buy them instead of waiting.`, 'quantity');
  }
  return { poolId: pool.id, email: email.data, quantity: request.quantity };
}

export interface WaitingEntry {
  id: string;
  quantity: number;
}

export interface PlannedOffer {
  entryId: string;
  quantity: number;
}

/** Shares `free` reserved tickets over the entries in join order: each gets up to what it asked for; the first left short takes the rest. */
export function planOffers(free: number, waiting: readonly WaitingEntry[]): PlannedOffer[] {
  const offers: PlannedOffer[] = [];
  let left = Math.max(0, free);
  for (const entry of waiting) {
    if (left === 0) break;
    const quantity = Math.min(entry.quantity, left);
    offers.push({ entryId: entry.id, quantity });
    left -= quantity;
  }
  return offers;
}

/**
 * Whether an allocator pass over a pool would change anything: an offer to
 * settle, a free reserve to offer (or put back on sale), offers to take, or
 * a demand in Redis that differs from PostgreSQL's. A pool where none holds
 * is skipped until the next round, so a quiet list costs a read, not two
 * transactions. Read without the pool's lock: a change just after the read
 * is seen by the next round.
 */
export function passHasWork(list: { waiting_demand: number; untaken: number; offers_ended: boolean }, stock: { reserved: number; demand: number | null }): boolean {
  return list.offers_ended || list.untaken > 0 || stock.reserved > list.untaken || (stock.demand ?? 0) !== list.waiting_demand;
}
