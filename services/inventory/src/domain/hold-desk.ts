/**
 * Holding tickets for a checkout, releasing them and selling them.
 *
 * A hold is recorded in PostgreSQL first and taken from Redis second, so the
 * durable record never knows less than Redis: if Redis is lost, counters
 * rebuilt as capacity − sold − live holds can only undersell, never
 * oversell; the rebuild writes the live holds' records back with the
 * counter, so they return to stock when released (see StockStore). A crash
 * between the two leaves a recorded hold that Redis never took; the sweeper
 * releases it at expiry and Redis has nothing to return. Selling (commit)
 * records the tickets as sold in PostgreSQL before Redis drops the
 * hold, and the sweeper never returns a sold hold to stock. Releasing ends
 * the hold in PostgreSQL before Redis returns its tickets; a give-back that
 * fails or is cut short by a crash is finished by settleStranded. Nothing
 * changes PostgreSQL while Redis is unusable (disconnected or not yet
 * verified after a restart, see RedisGate): the caller retries later
 * instead. Comp takes (CompStock) and refund give-backs (RefundRestocks)
 * are holds too, made with the same steps.
 */
import {
  ApiError,
  formatCents,
  formatTimestamp,
  holdFailed,
  inTransaction,
  isDryRun,
  notFound,
  type Logger,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { CatalogRepository, EventRow, PoolRow } from '../storage/catalog-repository';
import type { HoldBook, HoldOutcome } from '../storage/hold-book';
import type { HoldRecords } from '../storage/hold-records';
import type { HoldRepository, HoldRow } from '../storage/hold-repository';
import type { StockStore } from '../storage/stock-store';
import type { Catalog } from './catalog';
import type { CheckoutCatalog } from './checkout-catalog';
import { planCheckout, type CheckoutPlan, type RequestedLine } from './checkout-rules';
import { crossedAny, lowStockThreshold, type StockAlerts } from './stock-alerts';

export interface HoldRequest {
  holdId: string;
  eventIdOrSlug: string;
  lines: RequestedLine[];
  ttlSeconds: number;
}

export interface HoldResult {
  eventId: bigint;
  eventUrl: string;
  lines: Array<{ ticketTypeId: bigint; poolId: bigint; name: string; quantity: number; unitPrice: string; unitBookingFee: string; total: string }>;
  expiresAt?: string;
}

const DEFAULT_TTL_SECONDS = 15 * 60;
/** A hold record still in Redis this long after its expiry, for a hold PostgreSQL has ended, is settled by settleStranded. */
const STRANDED_GRACE_MS = 10_000;

/** A hold's answer: its lines priced in the API's decimal strings. */
export function heldResult(event: EventRow, eventUrl: string, plan: CheckoutPlan): HoldResult {
  return {
    eventId: BigInt(event.id),
    eventUrl,
    lines: plan.lines.map((line) => ({
      ticketTypeId: BigInt(line.ticketTypeId),
      poolId: BigInt(line.poolId),
      name: line.name,
      quantity: line.quantity,
      unitPrice: formatCents(line.unitPriceCents),
      unitBookingFee: formatCents(line.unitBookingFeeCents),
      total: formatCents(line.totalCents),
    })),
  };
}

export class HoldDesk {
  constructor(
    private readonly pool: Pool,
    private readonly holds: HoldRepository,
    private readonly catalogRepository: CatalogRepository,
    private readonly stock: StockStore,
    private readonly book: HoldBook,
    private readonly catalog: Catalog,
    private readonly checkoutCatalog: CheckoutCatalog,
    private readonly records: HoldRecords,
    private readonly alerts: StockAlerts,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Holds a checkout's tickets under the caller's hold id. The id is fixed
   * before the first attempt (the checkout session id), so a repeat finds the
   * hold and finishes it: a hold recorded but never taken from Redis (its
   * answer lost, or this process died between the two) is taken now; one
   * already taken is left as it is. Anything unexpected (PostgreSQL or Redis
   * away) is `hold_failed`, which tells the caller a retry is safe.
   */
  async hold(ctx: RequestContext, request: HoldRequest): Promise<HoldResult> {
    try {
      return await this.holdOnce(ctx, request);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      this.logger.error({ err: error, holdId: request.holdId }, 'holding stock failed');
      throw holdFailed();
    }
  }

  private async holdOnce(ctx: RequestContext, request: HoldRequest): Promise<HoldResult> {
    // The catalog from this process's snapshot (current by its version), not three queries a hold.
    const catalog = await this.checkoutCatalog.forCheckout(ctx.organisationId, request.eventIdOrSlug);
    if (!catalog) throw notFound('event', 'event_id');
    const { event, pools, types } = catalog;
    const now = this.clock();
    const plan = planCheckout(event, types, request.lines, now);
    const capped = pools.filter((pool) => pool.capacity !== null && plan.perPool.has(pool.id));
    const result = heldResult(event, this.catalog.eventUrl(event), plan);

    const dryRun = isDryRun(ctx);
    // A repeat whose hold Redis already has took its tickets out of what is left: it passes.
    if (!(await this.enoughLeft(capped, plan)) && (dryRun || !(await this.book.isHeld(event.id, request.holdId)))) {
      throw new ApiError('exceeds_availability', 'Not enough tickets left for this order.', 'items');
    }
    if (dryRun) return result;

    let expiresAt = new Date(now.getTime() + (request.ttlSeconds || DEFAULT_TTL_SECONDS) * 1000);
    let perPool = plan.perPool;
    const record = {
      id: request.holdId,
      organisationId: ctx.organisationId,
      eventId: event.id,
      pools: capped.map((p) => ({ pool_id: p.id, quantity: plan.perPool.get(p.id)! })),
      expiresAt,
    };
    // Written with the other holds of this tick in one statement (HoldRecords).
    if (!(await this.records.record(record)) && !(await this.holds.renewReleased(record))) {
      // Recorded by an earlier attempt: take exactly what it recorded (the script does nothing twice).
      const existing = await this.repeatedHold(ctx, request.holdId, event.id);
      expiresAt = existing.expires_at;
      perPool = new Map(existing.pools.map((line) => [String(line.pool_id), line.quantity]));
    }

    let outcome: HoldOutcome;
    try {
      outcome = await this.take(event, capped.filter((p) => perPool.has(p.id)), perPool, request.holdId, expiresAt);
    } catch (error) {
      this.logger.error({ err: error, holdId: request.holdId }, 'holding stock in Redis failed');
      await this.abandon(event.id, request.holdId);
      throw holdFailed();
    }
    if (!outcome.held && outcome.reason !== 'already_held') {
      await this.abandon(event.id, request.holdId);
      throw new ApiError('exceeds_availability', 'Not enough tickets left for this order.', 'items');
    }
    if (outcome.held) await this.announce(ctx, event, pools, outcome);
    return { ...result, expiresAt: formatTimestamp(expiresAt) };
  }

  /** Returns a hold's tickets to stock; safe to repeat. A sold hold is never returned. */
  async release(holdId: string): Promise<boolean> {
    this.book.assertUsable();
    const row = await inTransaction(this.pool, async (client) => {
      const hold = await this.holds.lock(client, holdId);
      if (hold?.state === 'held') await this.holds.markReleased(client, holdId);
      return hold;
    });
    if (!row) return false;
    if (row.state === 'committed') {
      await this.book.commit(row.event_id, holdId);
      return false;
    }
    const returned = await this.book.release(row.event_id, holdId);
    return row.state === 'held' || returned;
  }

  /** Sells a live hold: the tickets move to `sold` for good. */
  async commit(holdId: string): Promise<boolean> {
    this.book.assertUsable();
    const row = await inTransaction(this.pool, async (client) => {
      const hold = await this.holds.lock(client, holdId);
      if (!hold) throw notFound('hold', 'hold_id');
      if (hold.state === 'released') throw new ApiError('exceeds_availability', 'This hold was released; hold the tickets again.', 'hold_id');
      if (hold.state === 'held') await this.holds.sell(client, hold);
      return hold;
    });
    await this.book.commit(row.event_id, holdId);
    return true;
  }

  /**
   * Releases up to `limit` holds whose time has passed; returns how many.
   * One statement ends them all in PostgreSQL (rows another transaction
   * holds, a commit racing its expiry, are skipped and looked at next time),
   * then their tickets go back to Redis together, as `release` does for
   * one. A give-back that fails (a shard closing) or never runs (the process
   * dies between the two) leaves a record the stranded-hold settler returns.
   */
  async sweep(limit = 200): Promise<number> {
    // Nothing can go back to stock while Redis is away; the holds wait for the next sweep.
    if (!this.book.usable) return 0;
    const rows = await this.holds.releaseLapsed(this.clock(), limit);
    const givenBack = await Promise.allSettled(rows.map((row) => this.book.release(row.event_id, row.id)));
    const failed = givenBack.filter((outcome) => outcome.status === 'rejected').length;
    if (failed > 0) this.logger.warn({ failed, released: rows.length }, 'released holds whose tickets could not go back to Redis yet; the settler returns them');
    return rows.length;
  }

  /**
   * Settles hold records Redis still keeps for holds PostgreSQL has already
   * ended: a release whose give-back to Redis failed, or whose process died
   * between the two steps, would otherwise keep its tickets out of stock for
   * good (PostgreSQL says released, so the sweeper never looks at it again).
   * Only records past their expiry by `graceMs` are looked at: a hold still
   * live in PostgreSQL is the sweeper's, and one being settled right now is
   * settled once (both scripts act at most once per record). Returns how many
   * records it settled.
   */
  async settleStranded(graceMs = STRANDED_GRACE_MS, limit = 500): Promise<number> {
    if (!this.book.usable) return 0;
    const before = new Date(this.clock().getTime() - graceMs);
    let settled = 0;
    for (const eventId of await this.book.eventsWithHolds()) {
      try {
        for (const hold of await this.catalogRepository.settledHolds(await this.book.expired(eventId, before, limit))) {
          const done = hold.state === 'committed' ? await this.book.commit(hold.eventId, hold.id) : await this.book.release(hold.eventId, hold.id);
          if (done) settled += 1;
        }
      } catch (error) {
        // A closed shard, or PostgreSQL away: this event waits for the next round, the others go on.
        this.logger.warn({ err: error, eventId }, 'could not settle stranded holds');
      }
    }
    if (settled > 0) this.logger.warn({ settled }, 'returned stranded hold records to stock');
    return settled;
  }

  /** What is left of each capped pool; `hold_failed` when Redis cannot say. */
  async availability(capped: PoolRow[]): Promise<Map<string, number | null>> {
    try {
      return await this.stock.availability(capped);
    } catch (error) {
      this.logger.error({ err: error }, 'reading stock from Redis failed');
      throw holdFailed();
    }
  }

  /** Takes a recorded hold's tickets from Redis; a counter Redis lost is rebuilt and the take tried once more. */
  async take(event: EventRow, capped: PoolRow[], perPool: Map<string, number>, holdId: string, expiresAt: Date): Promise<HoldOutcome> {
    const lines = capped.map((pool) => ({ poolId: pool.id, quantity: perPool.get(pool.id)!, threshold: lowStockThreshold(pool.capacity!) }));
    if (lines.length === 0) return { held: true, lowStock: [], soldOut: [] };
    const outcome = await this.book.hold(event.id, holdId, lines, expiresAt);
    if (outcome.held || outcome.reason !== 'unknown_pool') return outcome;
    await this.stock.availability(capped);
    return this.book.hold(event.id, holdId, lines, expiresAt);
  }

  /**
   * A hold that was not taken (refused, or Redis failed): released in
   * PostgreSQL, then whatever Redis may hold for it after all is returned (a
   * take whose answer was lost, or a record a concurrent rebuild wrote back).
   */
  async abandon(eventId: string, holdId: string): Promise<void> {
    await this.holds.releaseIfHeld(holdId);
    await this.book.release(eventId, holdId).catch((error: unknown) => this.logger.warn({ err: error, holdId }, 'could not return an abandoned hold to stock'));
  }

  /** Announces the stock crossings a take caused; a failure is logged, never the buyer's. */
  announce(ctx: RequestContext, event: EventRow, pools: PoolRow[], outcome: Extract<HoldOutcome, { held: true }>): Promise<void> {
    if (!crossedAny(outcome)) return Promise.resolve();
    return this.alerts.announce(ctx, event, pools, outcome).catch((error: unknown) =>
      this.logger.error({ err: error, eventId: event.id }, 'could not announce stock crossings'),
    );
  }

  /** Enough left right now? Cheap, and keeps hopeless attempts off PostgreSQL during a sell-out. */
  private async enoughLeft(capped: PoolRow[], plan: CheckoutPlan): Promise<boolean> {
    const availability = await this.availability(capped);
    return capped.every((pool) => (availability.get(pool.id) ?? 0) >= plan.perPool.get(pool.id)!);
  }

  /** The live hold an earlier attempt recorded under this id, for this organisation and event. */
  private async repeatedHold(ctx: RequestContext, holdId: string, eventId: string): Promise<HoldRow> {
    const existing = (await this.holds.find(holdId))!;
    if (Number(existing.organisation_id) !== ctx.organisationId || existing.event_id !== eventId || existing.state !== 'held') {
      throw new ApiError('parameter_invalid', 'This hold id is already used.', 'hold_id');
    }
    return existing;
  }
}
