/**
 * Holding an event's seats, releasing and selling them, with the guarantees
 * general admission holds have (see hold-desk.ts):
 *
 * - PostgreSQL first: a hold is recorded in `seat_holds` (one row per event
 *   and seat, so never two holders) before Redis takes it, and a release or
 *   sale is recorded there before Redis follows. Redis never knows of a
 *   seat held that PostgreSQL does not.
 * - Redis through Lua: the event's seat hash answers all or nothing; a hash
 *   that is missing (a new event, or dropped after a Redis loss) is rebuilt
 *   from PostgreSQL before use.
 * - Idempotent hold ids: the same hold id asking again for the same seats
 *   gets the same seats and expiry; a hold recorded but never taken from
 *   Redis (a lost answer, a crash between the two) is taken on the retry.
 * - Expired holds count as free on both sides: no sweep is needed to sell
 *   their seats again.
 *
 * Nothing changes PostgreSQL while Redis is unusable (the gate): the caller
 * retries later. Not wired into checkout sessions or pages yet.
 */
import { ApiError, holdFailed, inTransaction, type Logger, type Pool } from '@partner-api/shared';
import type { SeatBook } from '../storage/seat-book';
import { SeatHoldRepository, type SeatStateRow } from '../storage/seat-hold-repository';
import { bestAvailable, type BestAvailableRequest } from './best-available';
import { PlanCache, type EventSeats } from './event-seating';

const DEFAULT_TTL_SECONDS = 15 * 60;
/** The most seats one hold takes (a hold is one customer's order). */
export const MAX_SEATS_PER_HOLD = 50;
/**
 * Best-available picks again, after a short random pause, this many times
 * when another buyer took a pick first (D530). Every conflict is another
 * buyer's hold, so retries end in a hold or a sell-out; the pause spreads
 * buyers who read the same seats at once over different picks.
 */
const BEST_AVAILABLE_ATTEMPTS = 20;
const RETRY_PAUSE_MS = 10;

/** Some of the seats asked for are taken: `exceeds_availability` on `seats`, naming them (D527). */
export class SeatsUnavailableError extends ApiError {
  constructor(readonly seats: string[]) {
    super('exceeds_availability', `These seats are no longer available: ${seats.join(', ')}.`, 'seats');
  }
}

export interface SeatHold {
  holdId: string;
  seats: string[];
  expiresAt: Date;
}

export interface BestAvailableAsk extends Omit<BestAvailableRequest, 'unavailable'> {
  /** Only the seats this pool sells. */
  poolId?: string;
}

const invalid = (message: string) => new ApiError('parameter_invalid', message, 'seats');

export class SeatDesk {
  private readonly rebuilding = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly book: SeatBook,
    private readonly logger: Logger,
    private readonly plans: PlanCache = new PlanCache(),
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Holds exactly these seats for `ttlSeconds`, or none of them (SeatsUnavailableError). */
  holdSeats(eventId: string, holdId: string, seatIds: readonly string[], ttlSeconds = DEFAULT_TTL_SECONDS): Promise<SeatHold> {
    return this.retrySafe(holdId, async () => {
      const seating = await this.plans.eventSeats(this.pool, eventId);
      this.checkSeats(seating, seatIds);
      return this.take(eventId, holdId, [...seatIds].sort(), ttlSeconds);
    });
  }

  /** Anything unexpected (PostgreSQL or Redis away, a deadlock) is `hold_failed`: a retry with the same hold id is safe. */
  private async retrySafe<T>(holdId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      this.logger.error({ err: error, holdId }, 'holding seats failed');
      throw holdFailed();
    }
  }

  /**
   * Holds the best `quantity` seats free now (bestAvailable over the seats
   * Redis has taken). Another buyer may take a pick between the read and the
   * hold: the pick is made again from a fresh read, a few times, before the
   * conflict is answered. A hold id that already holds seats answers them.
   */
  holdBestAvailable(eventId: string, holdId: string, ask: BestAvailableAsk, ttlSeconds = DEFAULT_TTL_SECONDS): Promise<SeatHold> {
    return this.retrySafe(holdId, () => this.pickAndHold(eventId, holdId, ask, ttlSeconds));
  }

  private async pickAndHold(eventId: string, holdId: string, ask: BestAvailableAsk, ttlSeconds: number): Promise<SeatHold> {
    const seating = await this.plans.eventSeats(this.pool, eventId);
    if (!seating.plan) throw new ApiError('parameter_invalid', 'The event has no seated pool.', 'event_id');
    const existing = await new SeatHoldRepository(this.pool).seatsOf(eventId, holdId, this.clock());
    if (existing.length > 0) return this.take(eventId, holdId, existing.map((row) => row.seat_id), ttlSeconds);
    const binding = ask.poolId === undefined ? undefined : seating.bindings.find((candidate) => candidate.pool_id === ask.poolId);
    if (ask.poolId !== undefined && !binding) throw new ApiError('parameter_invalid', 'The pool sells no seats of this event.', 'pool_id');
    // A pool's sections, narrowed further by the sections asked for.
    const poolSections = binding?.sections ?? undefined;
    const sections = ask.sections && poolSections ? ask.sections.filter((id) => poolSections.includes(id)) : (ask.sections ?? poolSections);
    for (let attempt = 1; ; attempt += 1) {
      const unavailable = await this.unavailableSeats(eventId, seating);
      const pick = bestAvailable(seating.plan.index, { ...ask, sections, unavailable });
      if (!pick.found) {
        throw new ApiError('exceeds_availability', pick.reason === 'not_together' ? 'Not enough seats left side by side.' : 'Not enough seats left.', 'quantity');
      }
      try {
        return await this.take(eventId, holdId, [...pick.seats].sort(), ttlSeconds);
      } catch (error) {
        if (!(error instanceof SeatsUnavailableError) || attempt === BEST_AVAILABLE_ATTEMPTS) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * RETRY_PAUSE_MS * Math.min(attempt, 5)));
    }
  }

  /** Frees a hold's seats; safe to repeat. Sold seats stay sold. */
  async release(eventId: string, holdId: string): Promise<string[]> {
    this.book.assertUsable(eventId);
    const freed = await new SeatHoldRepository(this.pool).release(eventId, holdId);
    await this.book.release(eventId, holdId, freed);
    return freed;
  }

  /**
   * Sells a hold's seats; safe to repeat (answers the seats sold). The seats
   * of a hold share one expiry (take), so they are sold all together or,
   * once it has passed, not at all.
   */
  async sell(eventId: string, holdId: string): Promise<string[]> {
    this.book.assertUsable(eventId);
    const seats = new SeatHoldRepository(this.pool);
    const now = this.clock();
    let sold = await seats.sell(eventId, holdId, now);
    if (sold.length === 0) {
      sold = (await seats.seatsOf(eventId, holdId, now)).filter((row) => row.state === 'sold').map((row) => row.seat_id);
      if (sold.length === 0) throw new ApiError('exceeds_availability', 'This hold expired or was released; hold the seats again.', 'hold_id');
    }
    await this.book.sell(eventId, holdId, sold);
    return sold;
  }

  /**
   * Blocks seats (an organiser's kill seats): free, expired or blocked
   * already, every one or none; blocked seats are never held or sold until
   * unblocked. Held or sold seats are refused (SeatsUnavailableError).
   */
  async block(eventId: string, seatIds: readonly string[]): Promise<string[]> {
    const seating = await this.plans.eventSeats(this.pool, eventId);
    this.checkSeats(seating, seatIds, Number.MAX_SAFE_INTEGER);
    this.book.assertUsable(eventId);
    const sorted = [...seatIds].sort();
    const now = this.clock();
    const newlyBlocked = await inTransaction(this.pool, async (client) => {
      const seats = new SeatHoldRepository(client);
      const before = new Set((await seats.taken(eventId, now)).filter((row) => row.state === 'blocked').map((row) => row.seat_id));
      const blocked = new Set(await seats.block(eventId, sorted, now));
      if (blocked.size < sorted.length) throw new SeatsUnavailableError(sorted.filter((seat) => !blocked.has(seat)));
      return sorted.filter((seat) => !before.has(seat));
    });
    let outcome;
    try {
      outcome = await this.book.block(eventId, sorted, now);
      if (!outcome.held && outcome.reason === 'missing') {
        await this.rebuild(eventId);
        outcome = await this.book.block(eventId, sorted, now);
      }
    } catch (error) {
      this.logger.error({ err: error, eventId }, 'blocking seats in Redis failed');
      await new SeatHoldRepository(this.pool).unblock(eventId, newlyBlocked);
      throw holdFailed();
    }
    if (outcome.held) return sorted;
    await new SeatHoldRepository(this.pool).unblock(eventId, newlyBlocked);
    if (outcome.reason === 'taken') throw new SeatsUnavailableError(outcome.seats);
    throw holdFailed();
  }

  /** Frees blocked seats; answers those that were blocked. Safe to repeat. */
  async unblock(eventId: string, seatIds: readonly string[]): Promise<string[]> {
    this.book.assertUsable(eventId);
    const freed = await new SeatHoldRepository(this.pool).unblock(eventId, seatIds);
    await this.book.unblock(eventId, freed);
    return freed;
  }

  private checkSeats(seating: EventSeats, seatIds: readonly string[], max = MAX_SEATS_PER_HOLD): void {
    if (seating.poolOf.size === 0) throw new ApiError('parameter_invalid', 'The event has no seated pool.', 'event_id');
    if (seatIds.length === 0) throw invalid('seats must name at least one seat.');
    if (seatIds.length > max) throw invalid(`A hold takes at most ${max} seats.`);
    if (new Set(seatIds).size !== seatIds.length) throw invalid('seats names a seat twice.');
    const unknown = seatIds.filter((seat) => !seating.poolOf.has(seat));
    if (unknown.length > 0) throw invalid(`The event sells no seat ${unknown.slice(0, 10).join(', ')}.`);
  }

  /** Records the hold in PostgreSQL, then takes it in Redis; undoes the record when Redis refuses or fails. */
  private async take(eventId: string, holdId: string, seatIds: string[], ttlSeconds: number): Promise<SeatHold> {
    this.book.assertUsable(eventId);
    const now = this.clock();
    const expiresAt = await inTransaction(this.pool, async (client) => {
      const seats = new SeatHoldRepository(client);
      const mine = await seats.seatsOf(eventId, holdId, now);
      const wanted = new Set(seatIds);
      if (mine.some((row) => !wanted.has(row.seat_id))) throw invalid('This hold id already holds other seats.');
      // A repeat keeps the hold's time; a new hold (or one whose time passed) gets a new one.
      const live = mine.find((row) => row.state === 'held');
      const until = live?.expires_at ?? new Date(now.getTime() + ttlSeconds * 1000);
      if (mine.some((row) => row.state === 'sold')) throw invalid('This hold id was sold already.');
      const taken = await seats.take(eventId, holdId, seatIds, until, now);
      if (taken.length < seatIds.length) throw new SeatsUnavailableError(await seats.unavailable(eventId, holdId, seatIds, now));
      return until;
    });

    let outcome;
    try {
      outcome = await this.book.hold(eventId, holdId, seatIds, expiresAt, now);
      if (!outcome.held && outcome.reason === 'missing') {
        await this.rebuild(eventId);
        outcome = await this.book.hold(eventId, holdId, seatIds, expiresAt, now);
      }
    } catch (error) {
      this.logger.error({ err: error, holdId }, 'holding seats in Redis failed');
      await this.abandon(eventId, holdId);
      throw holdFailed();
    }
    if (outcome.held) return { holdId, seats: seatIds, expiresAt };
    await this.abandon(eventId, holdId);
    // Redis still has a seat PostgreSQL had freed (its give-back was cut short): taken until its time passes.
    if (outcome.reason === 'taken') throw new SeatsUnavailableError(outcome.seats);
    throw holdFailed();
  }

  private async abandon(eventId: string, holdId: string): Promise<void> {
    await new SeatHoldRepository(this.pool).release(eventId, holdId).catch((error: unknown) => this.logger.error({ err: error, holdId }, 'could not undo a seat hold; it frees at expiry'));
  }

  /** Seats held (not expired), sold or blocked now, as Redis has them. */
  private async unavailableSeats(eventId: string, seating: EventSeats): Promise<Set<string>> {
    let live = await this.book.seats(eventId);
    if (!live) {
      await this.rebuild(eventId);
      live = (await this.book.seats(eventId)) ?? new Map();
    }
    const now = this.clock().getTime();
    const unavailable = new Set<string>();
    for (const [seat, state] of live) if (state.state !== 'held' || state.expiresAt > now) unavailable.add(seat);
    // Seats outside the event's pools are never sold.
    for (const seat of seating.plan!.index.ids) if (!seating.poolOf.has(seat)) unavailable.add(seat);
    return unavailable;
  }

  /** Rebuilds the event's missing seat hash from PostgreSQL; concurrent callers in this process share one. */
  rebuild(eventId: string): Promise<void> {
    let work = this.rebuilding.get(eventId);
    if (!work) {
      work = this.restore(eventId).finally(() => this.rebuilding.delete(eventId));
      this.rebuilding.set(eventId, work);
    }
    return work;
  }

  private async restore(eventId: string): Promise<void> {
    const seats = new SeatHoldRepository(this.pool);
    const snapshot = await seats.taken(eventId, this.clock());
    if (!(await this.book.restore(eventId, snapshot))) return;
    // A hold released or sold between the snapshot and the restore found no
    // hash to change; the restore has just written it back. Settle those again.
    const current = new Map((await seats.taken(eventId, this.clock())).map((row) => [row.seat_id, row]));
    const same = (a: SeatStateRow, b: SeatStateRow | undefined) => b !== undefined && a.state === b.state && a.hold_id === b.hold_id;
    for (const row of snapshot) {
      const now = current.get(row.seat_id);
      if (row.state !== 'held' || same(row, now)) continue;
      if (now?.state === 'sold' && now.hold_id === row.hold_id) await this.book.sell(eventId, row.hold_id!, [row.seat_id]);
      else await this.book.release(eventId, row.hold_id!, [row.seat_id]);
    }
  }
}
