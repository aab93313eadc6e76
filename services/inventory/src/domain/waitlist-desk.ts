/**
 * Waiting lists: customers queue for a sold-out pool; tickets that come back
 * are offered to them in join order as ordinary holds.
 *
 * Returning tickets (an expired or released hold, a refund or void restock,
 * a capacity increase) never reach general sale while the list asks for
 * them: the Redis step that returns them moves them into the pool's reserve
 * instead (hold-book.ts, stock-store.ts), so a concurrent burst cannot take
 * them. A pass of the allocator (allocate, run by a loop in every process,
 * one pass per pool at a time under the pool's advisory lock) then:
 *
 * 1. settles offers whose hold ended (sold → purchased, released → lapsed;
 *    a lapsed offer's tickets went back through the release, so to the next
 *    entry, or on sale when nobody waits);
 * 2. offers the free reserve (reserve − offers not yet taken) to waiting
 *    entries in join order: in one transaction each offer's hold
 *    `waitlist:<entry>` is recorded, the entry marked offered and
 *    `waitlist.released` written to the outbox;
 * 3. under the offers' hold locks, takes their tickets from the reserve in
 *    Redis (once per hold id) and sets the demand still waiting; with none,
 *    the reserve goes back on sale.
 *
 * PostgreSQL always learns first, and each step can be repeated: a process
 * dying between 2 and 3 leaves untaken offers that the next pass takes, and
 * whose tickets the reserve still has.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  ApiError,
  emitEvent,
  formatTimestamp,
  gen,
  inTransaction,
  isUuid,
  notFound,
  type Logger,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { CatalogRepository } from '../storage/catalog-repository';
import type { Catalog } from './catalog';
import { planCheckout } from './checkout-rules';
import { heldResult } from './hold-desk';
import type { StockStore } from '../storage/stock-store';
import { WaitlistEntries, type EntryRow } from '../storage/waitlist-entries';
import type { WaitlistStock } from '../storage/waitlist-stock';
import { passHasWork, planJoin, planOffers, type JoinRequest } from './waitlist-rules';

export interface WaitlistOptions {
  /** How long an offer's hold (its checkout session) lasts. */
  offerTtlSeconds: number;
}

type EntryView = MessageInitShape<typeof gen.inventory.WaitlistEntrySchema>;

export class WaitlistDesk {
  private readonly entries: WaitlistEntries;

  constructor(
    private readonly pool: Pool,
    private readonly repository: CatalogRepository,
    private readonly stock: StockStore,
    private readonly reserve: WaitlistStock,
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    private readonly options: WaitlistOptions,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.entries = new WaitlistEntries(pool);
  }

  /**
   * A customer joins the list of a ticket type's pool. Joining again with
   * the same email while an entry is live returns that entry unchanged.
   */
  async join(ctx: RequestContext, eventId: string, request: JoinRequest): Promise<EntryView> {
    const event = /^[0-9]{1,18}$/.test(eventId) ? await this.entries.publishedEvent(ctx.organisationId, eventId) : undefined;
    if (!event) throw notFound('event', 'event_id');
    const [pools, types] = await Promise.all([this.repository.poolsForEvents([event.id]), this.repository.ticketTypesForEvents([event.id])]);
    const available = await this.stock.availability(pools.filter((pool) => pool.capacity !== null));
    const plan = planJoin(event, types, pools, request, available, this.clock());
    let demand = 0;
    const entry = await inTransaction(this.pool, async (client) => {
      await WaitlistEntries.lockPool(client, plan.poolId);
      const joined = await WaitlistEntries.join(client, { organisationId: event.organisation_id, eventId: event.id, ticketTypeId: request.ticketTypeId, ...plan });
      demand = await WaitlistEntries.waitingDemand(client, plan.poolId);
      return joined;
    });
    // After the commit, so Redis never asks for an entry PostgreSQL lacks. A stale count (a crash first, a
    // concurrent join's older one) is put right by the allocator's next pass, which sets it from PostgreSQL.
    await this.reserve.setDemand(event.id, plan.poolId, demand).catch((error: unknown) => this.logger.warn({ err: error, poolId: plan.poolId }, 'could not set waiting demand'));
    return view(entry);
  }

  /** The join page's event and its public ticket types (hidden ones are not offered to the public). */
  async form(ctx: RequestContext, eventId: string): Promise<MessageInitShape<typeof gen.inventory.WaitlistFormSchema>> {
    const event = /^[0-9]{1,18}$/.test(eventId) ? await this.entries.publishedEvent(ctx.organisationId, eventId) : undefined;
    if (!event) throw notFound('event', 'event_id');
    const [view, types] = await Promise.all([this.catalog.getEvent(ctx, event.id), this.catalog.listTicketTypes(ctx, event.id)]);
    return { organisationId: BigInt(event.organisation_id), event: view, ticketTypes: types.filter((type) => type.status !== 'hidden') };
  }

  /**
   * The offer behind a hold id, priced as its checkout will charge, for the
   * hosted checkout to open the offer's session (whose id is the hold id).
   */
  async offer(ctx: RequestContext, holdId: string): Promise<MessageInitShape<typeof gen.inventory.WaitlistOfferSchema>> {
    const offer = isUuid(holdId) ? await this.entries.offerByHold(ctx.organisationId, holdId) : undefined;
    if (!offer) throw notFound('waiting-list offer', 'hold_id');
    const event = await this.repository.findEvent(Number(offer.organisation_id), offer.event_id);
    if (!event) throw notFound('waiting-list offer', 'hold_id');
    const types = await this.repository.ticketTypesForEvents([event.id]);
    // The event or ticket type stopped selling since the offer: planCheckout says which, as for any checkout.
    const plan = planCheckout(event, types, [{ ticketTypeId: offer.ticket_type_id, poolId: offer.pool_id, quantity: offer.offered_quantity }], this.clock());
    return {
      organisationId: BigInt(offer.organisation_id),
      email: offer.email,
      state: offer.state,
      hold: { ...heldResult(event, this.catalog.eventUrl(event), plan), expiresAt: formatTimestamp(offer.expires_at) },
    };
  }

  /** An event's list in join order, for the operator. */
  async list(ctx: RequestContext, eventIdOrSlug: string): Promise<EntryView[]> {
    const event = await this.repository.findEvent(ctx.organisationId, eventIdOrSlug);
    if (!event) throw notFound('event', 'event_id_or_slug');
    return (await this.entries.forEvent(event.id)).map(view);
  }

  /**
   * An operator offers up to `count` tickets on general sale to the pool's
   * list now (as many as it asks for beyond what is already reserved).
   */
  async release(ctx: RequestContext, eventIdOrSlug: string, poolId: string, count: number): Promise<{ eventId: bigint; poolId: bigint; releasedCount: bigint }> {
    if (!Number.isInteger(count) || count < 1) throw new ApiError('parameter_invalid', 'count must be a whole number of at least 1.', 'count');
    const event = await this.repository.findEvent(ctx.organisationId, eventIdOrSlug);
    if (!event) throw notFound('event', 'event_id_or_slug');
    const pool = (await this.repository.poolsForEvents([event.id])).find((candidate) => candidate.id === poolId);
    if (!pool || pool.capacity === null) throw notFound('capped pool of this event', 'pool_id');
    const moved = await this.reserve.reserveAvailable(event.id, pool.id, count);
    if (moved > 0) await this.allocate(event.organisation_id, event.id, pool.id);
    return { eventId: BigInt(event.id), poolId: BigInt(pool.id), releasedCount: BigInt(moved) };
  }

  /** One pass over every pool with a live list; returns the tickets offered. */
  async allocateAll(): Promise<number> {
    const lists = await this.entries.livePools();
    // Every list's Redis side read at once (the client pipelines them): a quiet round is one query and one round trip.
    const stocks = await Promise.allSettled(lists.map((list) => this.reserve.listState(list.event_id, list.pool_id)));
    let offered = 0;
    const waiting: Array<{ poolId: string; error: unknown }> = [];
    for (const [index, list] of lists.entries()) {
      const stock = stocks[index]!;
      try {
        if (stock.status === 'rejected') throw stock.reason;
        if (!passHasWork(list, stock.value)) continue;
        offered += await this.allocate(list.organisation_id, list.event_id, list.pool_id);
      } catch (error) {
        // A closed shard or PostgreSQL away: this pool waits for the next pass, the others go on.
        waiting.push({ poolId: list.pool_id, error });
      }
    }
    // One line a round, not one per list: during an outage every list fails every second.
    if (waiting.length > 0) {
      this.logger.warn({ err: waiting[0]!.error, pools: waiting.map((entry) => entry.poolId).slice(0, 20), count: waiting.length }, 'could not offer tickets to some waiting lists');
    }
    return offered;
  }

  /** Settles, offers and takes for one pool (see the top of this file); returns the tickets newly offered. */
  async allocate(organisationId: string, eventId: string, poolId: string): Promise<number> {
    const offered = await this.offerReserve(organisationId, eventId, poolId);
    await this.takeOffers(eventId, poolId);
    return offered;
  }

  /** Steps 1 and 2: settle ended offers, then offer the free reserve in join order. */
  async offerReserve(organisationId: string, eventId: string, poolId: string): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await WaitlistEntries.lockPool(client, poolId);
      await WaitlistEntries.settleOffers(client, poolId);
      const free = (await this.reserve.listState(eventId, poolId)).reserved - (await WaitlistEntries.untakenQuantity(client, poolId));
      const offers = planOffers(free, await WaitlistEntries.waiting(client, poolId));
      if (offers.length === 0) return 0;
      const expiresAt = new Date(this.clock().getTime() + this.options.offerTtlSeconds * 1000);
      await WaitlistEntries.offer(client, organisationId, eventId, poolId, offers, expiresAt);
      const releasedCount = offers.reduce((sum, offer) => sum + offer.quantity, 0);
      await emitEvent(client, {
        type: 'waitlist.released',
        organisationId: Number(organisationId),
        schema: gen.inventory.WaitlistReleaseSchema,
        view: { object: 'waitlist_release', eventId: BigInt(eventId), poolId: BigInt(poolId), releasedCount: BigInt(releasedCount) },
        partitionKey: `event:${eventId}`,
      });
      return releasedCount;
    });
  }

  /** Step 3: take untaken offers from the reserve and set the demand still waiting. */
  async takeOffers(eventId: string, poolId: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await WaitlistEntries.lockPool(client, poolId);
      const untaken = await WaitlistEntries.lockUntaken(client, poolId);
      const demand = await WaitlistEntries.waitingDemand(client, poolId);
      const taken = await this.reserve.takeOffers(eventId, poolId, untaken, demand);
      await WaitlistEntries.markTaken(client, [...taken]);
      const short = untaken.filter((offer) => !taken.has(offer.holdId));
      // Only after a Redis loss (the rebuild counts the reserve as on sale): the hold lapses at its expiry.
      if (short.length > 0) this.logger.warn({ poolId, holds: short.map((offer) => offer.holdId) }, 'reserve short for waiting-list offers');
    });
  }
}

function view(row: EntryRow): EntryView {
  return {
    object: 'waitlist_entry',
    id: BigInt(row.id),
    eventId: BigInt(row.event_id),
    poolId: BigInt(row.pool_id),
    ticketTypeId: BigInt(row.ticket_type_id),
    email: row.email,
    quantity: row.quantity,
    state: row.state,
    holdId: row.hold_id ?? undefined,
    offeredQuantity: row.offered_quantity ?? undefined,
    offerExpiresAt: row.offer_expires_at ? formatTimestamp(row.offer_expires_at) : undefined,
    createdAt: formatTimestamp(row.created_at),
  };
}
