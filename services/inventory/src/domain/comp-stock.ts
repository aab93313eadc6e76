/**
 * Stock for comp batches. A batch is a hold sold on the spot: recorded,
 * taken from Redis and committed under the id `comp:<batch id>` by the
 * HoldDesk's steps, so it shares their guarantees and their stock-crossing
 * events. Giving a batch back (when its tickets could not be issued) turns
 * the sale back into a live hold in PostgreSQL, writes the hold's record
 * back into Redis and releases it like any hold.
 */
import { ApiError, formatTimestamp, holdFailed, inTransaction, isDryRun, notFound, type Logger, type Pool, type RequestContext } from '@partner-api/shared';
import type { CatalogRepository, EventRow, PoolRow } from '../storage/catalog-repository';
import type { HoldBook, HoldOutcome } from '../storage/hold-book';
import type { HoldRepository, HoldRow } from '../storage/hold-repository';
import { compGrant, planComp } from './comp-rules';
import type { HoldDesk } from './hold-desk';

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
export const COMP_TAKE_TTL_SECONDS = 60;
/** Takes tried while other sales keep taking the stock counted for this one. */
const MAX_COMP_TAKE_ATTEMPTS = 10;

/** Tickets a recorded take holds: its pool line, or the whole batch on an uncapped pool (nothing is recorded per pool there). */
const takenQuantity = (hold: HoldRow, requested: number): number =>
  hold.pools.length > 0 ? hold.pools.reduce((sum, line) => sum + line.quantity, 0) : requested;

interface CompTarget {
  event: EventRow;
  pools: PoolRow[];
  /** The batch's pool when it has a capacity; none when it is uncapped. */
  capped: PoolRow[];
  holdId: string;
  take: (granted: number) => CompTake;
}

export class CompStock {
  constructor(
    private readonly pool: Pool,
    private readonly desk: HoldDesk,
    private readonly holds: HoldRepository,
    private readonly catalogRepository: CatalogRepository,
    private readonly book: HoldBook,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Takes stock for a comp batch, for good: as many of `quantity` as are
   * left (compGrant), recorded as a hold, taken from Redis and committed to
   * sold (pool_sales). Repeating a batch id returns the first take; a batch given
   * back is taken again. A test key counts and takes nothing.
   */
  async take(ctx: RequestContext, request: CompTakeRequest): Promise<CompTake> {
    if (!Number.isInteger(request.quantity) || request.quantity < 1 || request.quantity > MAX_COMP_GUESTS) {
      throw new ApiError('parameter_invalid', `A comp batch holds 1 to ${MAX_COMP_GUESTS} guests.`, 'attendees');
    }
    if (!request.batchId) throw new ApiError('parameter_missing', 'batch_id is required.', 'batch_id');
    const event = await this.catalogRepository.findEvent(ctx.organisationId, request.eventIdOrSlug);
    if (!event) throw notFound('event', 'event_id');
    const [pools, types] = await Promise.all([this.catalogRepository.poolsForEvents([event.id]), this.catalogRepository.ticketTypesForEvents([event.id])]);
    const { type, poolId } = planComp(event, types, request, this.clock());
    const pool = pools.find((candidate) => candidate.id === poolId)!;
    const target: CompTarget = {
      event,
      pools,
      capped: pool.capacity === null ? [] : [pool],
      holdId: `comp:${request.batchId}`,
      take: (granted) => ({
        eventId: BigInt(event.id),
        poolId: BigInt(pool.id),
        ticketTypeName: type.name,
        granted,
        eventTitle: event.title,
        eventStartsAt: formatTimestamp(event.starts_at),
      }),
    };
    const dryRun = isDryRun(ctx);

    if (!dryRun) {
      const existing = await this.holds.find(target.holdId);
      if (existing && (Number(existing.organisation_id) !== ctx.organisationId || existing.event_id !== event.id)) {
        throw new ApiError('parameter_invalid', 'This batch id is already used.', 'batch_id');
      }
      // Taken before (a retry): the same tickets, or a take cut short that is finished now.
      if (existing?.state === 'committed') return target.take(takenQuantity(existing, request.quantity));
      if (existing?.state === 'held') return this.finish(ctx, target, takenQuantity(existing, request.quantity));
    }

    let granted = compGrant(request.quantity, (await this.desk.availability(target.capped)).get(pool.id) ?? null);
    if (dryRun) return target.take(granted);

    // Another sale can take the stock between the count and the take: count again and take what is left.
    for (let attempt = 1; ; attempt += 1) {
      const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
      const lines = target.capped.map((p) => ({ pool_id: p.id, quantity: granted }));
      const recorded = await this.holds.recordOrRenew({ id: target.holdId, organisationId: ctx.organisationId, eventId: event.id, pools: lines, expiresAt });
      if (!recorded) throw new ApiError('internal_error', 'An internal error occurred.');
      let outcome: HoldOutcome;
      try {
        outcome = await this.desk.take(event, target.capped, new Map([[pool.id, granted]]), target.holdId, expiresAt);
      } catch (error) {
        this.logger.error({ err: error, holdId: target.holdId }, 'taking comp stock in Redis failed');
        await this.desk.abandon(event.id, target.holdId);
        throw holdFailed('taken');
      }
      if (outcome.held || outcome.reason === 'already_held') return this.finish(ctx, target, granted, outcome);
      await this.desk.abandon(event.id, target.holdId);
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
  async giveBack(ctx: RequestContext, batchId: string): Promise<boolean> {
    this.book.assertUsable();
    const holdId = `comp:${batchId}`;
    const row = await inTransaction(this.pool, async (client) => {
      const hold = await this.holds.lock(client, holdId);
      if (!hold || Number(hold.organisation_id) !== ctx.organisationId) return undefined;
      // Live again until released below; if this process dies first, the sweeper releases it.
      if (hold.state === 'committed') await this.holds.unsell(client, hold, COMP_TAKE_TTL_SECONDS);
      return hold;
    });
    if (!row || row.state === 'released') return false;
    if (row.state === 'committed' && row.pools.length > 0) {
      const lines = row.pools.map((line) => ({ poolId: String(line.pool_id), quantity: line.quantity }));
      await this.book.reinstate(row.event_id, holdId, lines, this.clock());
    }
    await this.desk.release(holdId);
    return true;
  }

  /** Sells a recorded comp take and announces the crossings its take caused. */
  private async finish(ctx: RequestContext, target: CompTarget, granted: number, outcome?: HoldOutcome): Promise<CompTake> {
    const { event, capped, holdId } = target;
    if (!outcome && capped.length > 0) {
      // A take cut short after recording: Redis may or may not have it (the hold script does nothing twice).
      const expiresAt = new Date(this.clock().getTime() + COMP_TAKE_TTL_SECONDS * 1000);
      outcome = await this.desk.take(event, capped, new Map([[capped[0]!.id, granted]]), holdId, expiresAt).catch((error: unknown) => {
        this.logger.error({ err: error, holdId }, 'taking comp stock in Redis failed');
        throw holdFailed('taken');
      });
      if (!outcome.held && outcome.reason !== 'already_held') {
        await this.desk.abandon(event.id, holdId);
        throw new ApiError('exceeds_availability', 'No tickets are left in this pool for comps.', 'attendees');
      }
    }
    await this.desk.commit(holdId);
    if (outcome?.held) await this.desk.announce(ctx, event, target.pools, outcome);
    return target.take(granted);
  }
}
