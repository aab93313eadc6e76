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
 * fails or is cut short by a crash is finished by settleStranded. A sale is
 * appended to `pool_sales` (sold = pools.sold + those rows), never added to
 * the pool row, so the sales of a hot pool do not queue on one row. Nothing changes
 * PostgreSQL while Redis is unusable (disconnected or not yet verified
 * after a restart, see RedisGate): the caller retries later instead.
 *
 * A comp batch is a hold sold on the spot (takeComp): recorded, taken from
 * Redis and committed under the id `comp:<batch id>` by the same steps, so
 * it shares their guarantees and their stock-crossing events. Giving a
 * batch back (returnComp, when its tickets could not be issued) turns the
 * sale back into a live hold in PostgreSQL, writes the hold's record back
 * into Redis and releases it like any hold.
 */
import {
  ApiError,
  emitEvent,
  formatCents,
  formatTimestamp,
  gen,
  holdFailed,
  inTransaction,
  isDryRun,
  notFound,
  type Logger,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import { CatalogRepository, type EventRow, type PoolRow } from '../storage/catalog-repository';
import { type HoldBook, lowStockThreshold, type HoldOutcome } from '../storage/hold-book';
import type { HoldRecords } from '../storage/hold-records';
import type { StockStore } from '../storage/stock-store';
import type { Catalog } from './catalog';
import type { CheckoutCatalog } from './checkout-catalog';
import { planCheckout, type CheckoutPlan, type RequestedLine } from './checkout-rules';
import { compGrant, planComp } from './comp-rules';

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

export interface CompTakeRequest {
  batchId: string;
  eventIdOrSlug: string;
  ticketTypeId: string;
  poolId?: string | undefined;
  /** Guests in the batch. */
  quantity: number;
}

export interface CompTake {
  eventId: bigint;
  poolId: bigint;
  ticketTypeName: string;
  /** Tickets taken (or, for a dry run, that would be): the first guests of the batch get them. */
  granted: number;
  eventTitle: string;
  eventStartsAt: string;
}

/** The most guests one comp request carries (the spec's limit). */
export const MAX_COMP_GUESTS = 50;
/** A take that dies between recording and selling is released by the sweeper after this long. */
const COMP_TAKE_TTL_SECONDS = 60;
/** Takes tried while other sales keep taking the stock counted for this one. */
const MAX_COMP_TAKE_ATTEMPTS = 10;

interface HoldRow {
  id: string;
  event_id: string;
  organisation_id: string;
  pools: Array<{ pool_id: string; quantity: number }>;
  state: 'held' | 'released' | 'committed';
}

const DEFAULT_TTL_SECONDS = 15 * 60;

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
/** A hold record still in Redis this long after its expiry, for a hold PostgreSQL has ended, is settled by settleStranded. */
const STRANDED_GRACE_MS = 10_000;

export class HoldDesk {
  private readonly book: HoldBook;

  constructor(
    private readonly pool: Pool,
    private readonly repository: CatalogRepository,
    private readonly stock: StockStore,
    book: HoldBook,
    private readonly catalog: Catalog,
    private readonly checkoutCatalog: CheckoutCatalog,
    private readonly records: HoldRecords,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.book = book;
  }

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
    const result = this.result(event, plan);

    const dryRun = isDryRun(ctx);
    // A repeat whose hold Redis already has took its tickets out of what is left: it passes.
    if (!(await this.enoughLeft(capped, plan)) && (dryRun || !(await this.book.isHeld(event.id, request.holdId)))) {
      throw new ApiError('exceeds_availability', 'Not enough tickets left for this order.', 'items');
    }
    if (dryRun) return result;

    let expiresAt = new Date(now.getTime() + (request.ttlSeconds || DEFAULT_TTL_SECONDS) * 1000);
    let perPool = plan.perPool;
    // Written with the other holds of this tick in one statement (HoldRecords).
    const recorded = await this.records.record({
      id: request.holdId,
      organisationId: ctx.organisationId,
      eventId: event.id,
      pools: capped.map((p) => ({ pool_id: p.id, quantity: plan.perPool.get(p.id)! })),
      expiresAt,
    });
    if (!recorded && !(await this.renewReleased(ctx, request.holdId, event.id, capped, plan, expiresAt))) {
      // Recorded by an earlier attempt: take exactly what it recorded (the script does nothing twice).
      const existing = await this.repeatedHold(ctx, request.holdId, event.id);
      expiresAt = existing.expires_at;
      perPool = new Map(existing.pools.map((line) => [String(line.pool_id), line.quantity]));
    }

    let outcome: HoldOutcome;
    try {
      outcome = await this.takeFromRedis(event, capped.filter((p) => perPool.has(p.id)), perPool, request.holdId, expiresAt);
    } catch (error) {
      this.logger.error({ err: error, holdId: request.holdId }, 'holding stock in Redis failed');
      await this.abandon(event.id, request.holdId);
      throw holdFailed();
    }
    if (!outcome.held && outcome.reason !== 'already_held') {
      await this.abandon(event.id, request.holdId);
      throw new ApiError('exceeds_availability', 'Not enough tickets left for this order.', 'items');
    }
    if (outcome.held && (outcome.lowStock.length > 0 || outcome.soldOut.length > 0)) {
      await this.announceCrossings(ctx, event, pools, outcome).catch((error: unknown) =>
        this.logger.error({ err: error, eventId: event.id }, 'could not announce stock crossings'),
      );
    }
    return { ...result, expiresAt: formatTimestamp(expiresAt) };
  }

  /** Returns a hold's tickets to stock; safe to repeat. A sold hold is never returned. */
  async release(holdId: string): Promise<boolean> {
    this.book.assertUsable();
    const row = await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<HoldRow>('SELECT * FROM holds WHERE id = $1 FOR UPDATE', [holdId]);
      if (rows[0]?.state === 'held') await client.query("UPDATE holds SET state = 'released', updated_at = now() WHERE id = $1", [holdId]);
      return rows[0];
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
      const { rows } = await client.query<HoldRow>('SELECT * FROM holds WHERE id = $1 FOR UPDATE', [holdId]);
      const hold = rows[0];
      if (!hold) throw notFound('hold', 'hold_id');
      if (hold.state === 'released') throw new ApiError('exceeds_availability', 'This hold was released; hold the tickets again.', 'hold_id');
      if (hold.state === 'held') {
        // Appended, never added to the pool row: concurrent sales of one pool do not queue on it.
        await client.query(
          `INSERT INTO pool_sales (hold_id, pool_id, quantity)
           SELECT $1, (line->>'pool_id')::bigint, (line->>'quantity')::integer FROM jsonb_array_elements($2::jsonb) line`,
          [holdId, JSON.stringify(hold.pools)],
        );
        await client.query("UPDATE holds SET state = 'committed', updated_at = now() WHERE id = $1", [holdId]);
      }
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
    const { rows } = await this.pool.query<{ id: string; event_id: string }>(
      `UPDATE holds SET state = 'released', updated_at = now()
        WHERE id IN (SELECT id FROM holds WHERE state = 'held' AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, event_id`,
      [this.clock(), limit],
    );
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
        for (const hold of await this.repository.settledHolds(await this.book.expired(eventId, before, limit))) {
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

  /**
   * Takes stock for a comp batch, for good: as many of `quantity` as are
   * left (compGrant), recorded as a hold, taken from Redis and committed to
   * sold (pool_sales). Repeating a batch id returns the first take; a batch given
   * back is taken again. A test key counts and takes nothing.
   */
  async takeComp(ctx: RequestContext, request: CompTakeRequest): Promise<CompTake> {
    if (!Number.isInteger(request.quantity) || request.quantity < 1 || request.quantity > MAX_COMP_GUESTS) {
      throw new ApiError('parameter_invalid', `A comp batch holds 1 to ${MAX_COMP_GUESTS} guests.`, 'attendees');
    }
    if (!request.batchId) throw new ApiError('parameter_missing', 'batch_id is required.', 'batch_id');
    const event = await this.repository.findEvent(ctx.organisationId, request.eventIdOrSlug);
    if (!event) throw notFound('event', 'event_id');
    const [pools, types] = await Promise.all([this.repository.poolsForEvents([event.id]), this.repository.ticketTypesForEvents([event.id])]);
    const { type, poolId } = planComp(event, types, request, this.clock());
    const pool = pools.find((candidate) => candidate.id === poolId)!;
    const capped = pool.capacity === null ? [] : [pool];
    const take = (granted: number): CompTake => ({
      eventId: BigInt(event.id),
      poolId: BigInt(pool.id),
      ticketTypeName: type.name,
      granted,
      eventTitle: event.title,
      eventStartsAt: formatTimestamp(event.starts_at),
    });
    const holdId = `comp:${request.batchId}`;
    const dryRun = isDryRun(ctx);

    if (!dryRun) {
      const earlier = await this.pool.query<HoldRow>('SELECT * FROM holds WHERE id = $1', [holdId]);
      const existing = earlier.rows[0];
      if (existing && (Number(existing.organisation_id) !== ctx.organisationId || existing.event_id !== event.id)) {
        throw new ApiError('parameter_invalid', 'This batch id is already used.', 'batch_id');
      }
      // Taken before (a retry): the same tickets, or a take cut short that is finished now.
      if (existing?.state === 'committed') return take(this.takenQuantity(existing, request.quantity));
      if (existing?.state === 'held') return this.finishComp(ctx, event, pools, capped, holdId, this.takenQuantity(existing, request.quantity), take);
    }

    let granted = compGrant(request.quantity, (await this.readAvailability(capped)).get(pool.id) ?? null);
    if (dryRun) return take(granted);

    // Another sale can take the stock between the count and the take: count again and take what is left.
    for (let attempt = 1; ; attempt += 1) {
      const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
      const lines = JSON.stringify(capped.map((p) => ({ pool_id: p.id, quantity: granted })));
      const recorded = await this.pool.query(
        `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at) VALUES ($1, $2, $3, $4, 'held', $5)
         ON CONFLICT (id) DO UPDATE SET state = 'held', pools = excluded.pools, expires_at = excluded.expires_at, updated_at = now()
           WHERE holds.state = 'released' AND holds.organisation_id = excluded.organisation_id AND holds.event_id = excluded.event_id`,
        [holdId, ctx.organisationId, event.id, lines, expiresAt],
      );
      if (recorded.rowCount === 0) throw new ApiError('internal_error', 'An internal error occurred.');
      let outcome: HoldOutcome;
      try {
        outcome = await this.takeFromRedis(event, capped, new Map([[pool.id, granted]]), holdId, expiresAt);
      } catch (error) {
        this.logger.error({ err: error, holdId }, 'taking comp stock in Redis failed');
        await this.abandon(event.id, holdId);
        throw holdFailed('taken');
      }
      if (outcome.held || outcome.reason === 'already_held') return this.finishComp(ctx, event, pools, capped, holdId, granted, take, outcome);
      await this.abandon(event.id, holdId);
      // Each short take means another sale got there first, so stock only falls between attempts;
      // a counter lost again (Redis restarting), or a pool that keeps racing, is a retry later.
      if (outcome.reason !== 'short' || attempt === MAX_COMP_TAKE_ATTEMPTS) {
        throw holdFailed('taken');
      }
      granted = compGrant(request.quantity, outcome.available);
    }
  }

  /**
   * Gives a comp batch's tickets back (their tickets could not be issued):
   * its sale rows go and the take becomes a live hold again in one
   * transaction, its record is written back into Redis, and it is released
   * like any hold. Safe to repeat; false when there was nothing to return.
   */
  async returnComp(ctx: RequestContext, batchId: string): Promise<boolean> {
    this.book.assertUsable();
    const holdId = `comp:${batchId}`;
    const row = await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<HoldRow>('SELECT * FROM holds WHERE id = $1 FOR UPDATE', [holdId]);
      const hold = rows[0];
      if (!hold || Number(hold.organisation_id) !== ctx.organisationId) return undefined;
      if (hold.state === 'committed') {
        const unsold = await client.query('DELETE FROM pool_sales WHERE hold_id = $1', [holdId]);
        // A sale from before pool_sales existed was added to the pool row itself.
        if (unsold.rowCount === 0) {
          for (const line of hold.pools) await client.query('UPDATE pools SET sold = sold - $2 WHERE id = $1', [line.pool_id, line.quantity]);
        }
        // Live again until released below; if this process dies first, the sweeper releases it.
        await client.query(`UPDATE holds SET state = 'held', expires_at = now() + interval '${COMP_TAKE_TTL_SECONDS} seconds', updated_at = now() WHERE id = $1`, [holdId]);
      }
      return hold;
    });
    if (!row || row.state === 'released') return false;
    if (row.state === 'committed' && row.pools.length > 0) {
      const lines = row.pools.map((line) => ({ poolId: String(line.pool_id), quantity: line.quantity }));
      await this.book.reinstate(row.event_id, holdId, lines, this.clock());
    }
    await this.release(holdId);
    return true;
  }

  /**
   * Puts a refund's tickets back on sale, once per refund id. One
   * transaction records the give-back as a live hold `refund:<id>` and
   * undoes that much of the sale (negative `pool_sales` rows): capacity −
   * sold − live holds is unchanged, so a counter rebuilt at any moment is
   * still right. Under the same row lock the hold's record is written into
   * Redis (without moving the counters), and then it is released like any
   * hold, which returns the tickets. A repeat finds the hold: still live, it
   * is written and released again (the scripts act once); released, nothing
   * is left to do. A process that dies in between leaves a live hold the
   * sweeper releases. Only capped pools of the organisation's event count;
   * false when there was nothing (left) to return.
   */
  async restockRefund(ctx: RequestContext, refundId: string, eventId: string, lines: Array<{ poolId: string; quantity: number }>): Promise<boolean> {
    if (!refundId) throw new ApiError('parameter_missing', 'refund_id is required.', 'refund_id');
    if (lines.some((line) => !Number.isInteger(line.quantity) || line.quantity < 1)) throw new ApiError('parameter_invalid', 'Each line needs a quantity of at least 1.', 'lines');
    this.book.assertUsable(eventId);
    const holdId = `refund:${refundId}`;
    const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
    const hold = await inTransaction(this.pool, async (client) => {
      const { rows: capped } = await client.query<{ id: string }>(
        `SELECT p.id FROM pools p JOIN events e ON e.id = p.event_id
         WHERE e.id = $1 AND e.organisation_id = $2 AND p.capacity IS NOT NULL AND p.id = ANY($3::bigint[])`,
        [eventId, ctx.organisationId, lines.map((line) => line.poolId)],
      );
      const quantities = new Map<string, number>();
      for (const line of lines) {
        if (capped.some((pool) => pool.id === line.poolId)) quantities.set(line.poolId, (quantities.get(line.poolId) ?? 0) + line.quantity);
      }
      if (quantities.size === 0) return undefined;
      const pools = [...quantities].map(([pool_id, quantity]) => ({ pool_id, quantity }));
      const inserted = await client.query(
        `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at) VALUES ($1, $2, $3, $4, 'held', $5) ON CONFLICT (id) DO NOTHING`,
        [holdId, ctx.organisationId, eventId, JSON.stringify(pools), expiresAt],
      );
      if (inserted.rowCount === 1) {
        await client.query(
          `INSERT INTO pool_sales (hold_id, pool_id, quantity) SELECT $1, pool_id, -quantity FROM unnest($2::bigint[], $3::integer[]) AS t(pool_id, quantity)`,
          [holdId, pools.map((line) => line.pool_id), pools.map((line) => line.quantity)],
        );
      }
      const { rows } = await client.query<HoldRow>('SELECT * FROM holds WHERE id = $1 FOR UPDATE', [holdId]);
      const row = rows[0]!;
      if (Number(row.organisation_id) !== ctx.organisationId || row.event_id !== eventId) throw new ApiError('parameter_invalid', 'This refund id is already used.', 'refund_id');
      // Written while the row is locked: a sweep cannot release the hold between this check and the write.
      if (row.state === 'held') {
        await this.book.reinstate(eventId, holdId, row.pools.map((line) => ({ poolId: String(line.pool_id), quantity: line.quantity })), expiresAt);
      }
      return row;
    });
    if (!hold || hold.state !== 'held') return false;
    await this.release(holdId);
    return true;
  }

  /** Sells a recorded comp take and announces the crossings its take caused. */
  private async finishComp(
    ctx: RequestContext,
    event: EventRow,
    pools: PoolRow[],
    capped: PoolRow[],
    holdId: string,
    granted: number,
    take: (granted: number) => CompTake,
    outcome?: HoldOutcome,
  ): Promise<CompTake> {
    if (!outcome && capped.length > 0) {
      // A take cut short after recording: Redis may or may not have it (the hold script does nothing twice).
      const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
      outcome = await this.takeFromRedis(event, capped, new Map([[capped[0]!.id, granted]]), holdId, expiresAt).catch((error: unknown) => {
        this.logger.error({ err: error, holdId }, 'taking comp stock in Redis failed');
        throw holdFailed('taken');
      });
      if (!outcome.held && outcome.reason !== 'already_held') {
        await this.abandon(event.id, holdId);
        throw new ApiError('exceeds_availability', 'No tickets are left in this pool for comps.', 'attendees');
      }
    }
    await this.commit(holdId);
    if (outcome?.held && (outcome.lowStock.length > 0 || outcome.soldOut.length > 0)) {
      await this.announceCrossings(ctx, event, pools, outcome).catch((error: unknown) =>
        this.logger.error({ err: error, eventId: event.id }, 'could not announce stock crossings'),
      );
    }
    return take(granted);
  }

  /** Tickets a recorded take holds: its pool line, or the whole batch on an uncapped pool (nothing is recorded per pool there). */
  private takenQuantity(hold: HoldRow, requested: number): number {
    return hold.pools.length > 0 ? hold.pools.reduce((sum, line) => sum + line.quantity, 0) : requested;
  }

  private async readAvailability(capped: PoolRow[]): Promise<Map<string, number | null>> {
    try {
      return await this.stock.availability(capped);
    } catch (error) {
      this.logger.error({ err: error }, 'reading stock from Redis failed');
      throw holdFailed();
    }
  }

  private result(event: EventRow, plan: CheckoutPlan): HoldResult {
    return heldResult(event, this.catalog.eventUrl(event), plan);
  }

  /** Enough left right now? Cheap, and keeps hopeless attempts off PostgreSQL during a sell-out. */
  private async enoughLeft(capped: PoolRow[], plan: CheckoutPlan): Promise<boolean> {
    const availability = await this.readAvailability(capped);
    return capped.every((pool) => (availability.get(pool.id) ?? 0) >= plan.perPool.get(pool.id)!);
  }

  private async takeFromRedis(event: EventRow, capped: PoolRow[], perPool: Map<string, number>, holdId: string, expiresAt: Date): Promise<HoldOutcome> {
    const lines = capped.map((pool) => ({ poolId: pool.id, quantity: perPool.get(pool.id)!, threshold: lowStockThreshold(pool.capacity!) }));
    if (lines.length === 0) return { held: true, lowStock: [], soldOut: [] };
    const outcome = await this.book.hold(event.id, holdId, lines, expiresAt);
    if (outcome.held || outcome.reason !== 'unknown_pool') return outcome;
    // A counter vanished (Redis restarted): rebuild it from the durable record and try once more.
    await this.stock.availability(capped);
    return this.book.hold(event.id, holdId, lines, expiresAt);
  }

  /** The live hold an earlier attempt recorded under this id, for this organisation and event. */
  private async repeatedHold(ctx: RequestContext, holdId: string, eventId: string): Promise<HoldRow & { expires_at: Date }> {
    const { rows } = await this.pool.query<HoldRow & { expires_at: Date }>('SELECT * FROM holds WHERE id = $1', [holdId]);
    const existing = rows[0]!;
    if (Number(existing.organisation_id) !== ctx.organisationId || existing.event_id !== eventId || existing.state !== 'held') {
      throw new ApiError('parameter_invalid', 'This hold id is already used.', 'hold_id');
    }
    return existing;
  }

  /**
   * A released hold taken again under the same id: orders does this when a
   * customer pays a session whose hold lapsed. Only the organisation's own
   * hold for the same event, and only from `released`.
   */
  private async renewReleased(ctx: RequestContext, holdId: string, eventId: string, capped: PoolRow[], plan: CheckoutPlan, expiresAt: Date): Promise<boolean> {
    const renewed = await this.pool.query(
      `UPDATE holds SET state = 'held', pools = $4, expires_at = $5, updated_at = now()
       WHERE id = $1 AND organisation_id = $2 AND event_id = $3 AND state = 'released'`,
      [holdId, ctx.organisationId, eventId, JSON.stringify(capped.map((p) => ({ pool_id: p.id, quantity: plan.perPool.get(p.id) }))), expiresAt],
    );
    return renewed.rowCount === 1;
  }

  /**
   * A hold that was not taken (refused, or Redis failed): released in
   * PostgreSQL, then whatever Redis may hold for it after all is returned (a
   * take whose answer was lost, or a record a concurrent rebuild wrote back).
   */
  private async abandon(eventId: string, holdId: string): Promise<void> {
    await this.pool.query("UPDATE holds SET state = 'released', updated_at = now() WHERE id = $1 AND state = 'held'", [holdId]);
    await this.book.release(eventId, holdId).catch((error: unknown) => this.logger.warn({ err: error, holdId }, 'could not return an abandoned hold to stock'));
  }

  /** ticket_type.low_inventory for each type of a pool that crossed its threshold; event.sold_out when nothing is left. */
  private async announceCrossings(ctx: RequestContext, event: EventRow, pools: PoolRow[], outcome: Extract<HoldOutcome, { held: true }>): Promise<void> {
    const types = await this.catalog.ticketTypeViews(event);
    const organisationId = ctx.organisationId;
    await inTransaction(this.pool, async (client) => {
      for (const poolId of outcome.lowStock) {
        const pool = pools.find((p) => p.id === poolId)!;
        for (const type of types.filter((view) => String(view.poolId) === poolId)) {
          const extra = { threshold: lowStockThreshold(pool.capacity!) };
          await emitEvent(client, { type: 'ticket_type.low_inventory', organisationId, schema: gen.inventory.TicketTypeSchema, view: type, partitionKey: `event:${event.id}`, extra });
        }
      }
      if (outcome.soldOut.length > 0) {
        const [view] = await this.catalog.views([event]);
        if (view?.soldOut) {
          // Selling out changes the event object (`sold_out`): polling partners see it by `updated_since` too.
          view.updatedAt = formatTimestamp(await new CatalogRepository(client).touchEvent(event.id));
          await emitEvent(client, { type: 'event.sold_out', organisationId, schema: gen.inventory.EventSchema, view, partitionKey: `event:${event.id}` });
        }
      }
    });
  }
}
