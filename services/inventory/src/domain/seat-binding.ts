/**
 * Binding a seated pool to its event's venue plan (an operator's step,
 * like importing the plan): a version of the plan, all of its sections or
 * some; the pool's capacity becomes their seat count (D520–D522).
 */
import { ApiError, inTransaction, notFound, type Pool } from '@partner-api/shared';
import { SeatBindings } from '../storage/seat-bindings';
import { SeatingPlanRepository } from '../storage/seating-plan-repository';
import type { StockStore } from '../storage/stock-store';
import { boundSeats, PlanCache } from './event-seating';

export interface BindRequest {
  poolId: bigint;
  /** The plan version; the venue's latest when undefined. */
  version?: number;
  /** Section ids; every section when undefined or empty. */
  sections?: readonly string[];
}

export interface PoolSeatingView {
  object: 'pool_seating';
  poolId: bigint;
  venueId: bigint;
  version: number;
  sections: string[];
  seatCount: number;
}

const invalid = (param: string, message: string) => new ApiError('parameter_invalid', message, param);

export class SeatBinder {
  constructor(
    private readonly pool: Pool,
    private readonly stock: StockStore,
    private readonly plans: PlanCache = new PlanCache(),
  ) {}

  async bind(request: BindRequest): Promise<PoolSeatingView> {
    if (request.poolId < 1n) throw invalid('pool_id', 'pool_id must be a pool id (a positive whole number).');
    if (request.version !== undefined && !(Number.isInteger(request.version) && request.version >= 1)) throw invalid('version', 'version must be a positive whole number.');
    const sections = request.sections === undefined || request.sections.length === 0 ? null : [...new Set(request.sections)];
    return inTransaction(this.pool, async (client) => {
      const bindings = new SeatBindings(client);
      const pool = await bindings.lockPool(request.poolId.toString());
      if (!pool) throw notFound('pool', 'pool_id');
      if (pool.venue_id === null) throw invalid('pool_id', "The pool's event has no venue, so no seating plan.");
      const planRow = await new SeatingPlanRepository(client).find(pool.venue_id, request.version);
      if (!planRow) throw invalid(request.version === undefined ? 'pool_id' : 'version', request.version === undefined ? "The event's venue has no seating plan." : `The venue has no seating plan version ${request.version}.`);
      const plan = (await this.plans.load(client, pool.venue_id, planRow.version))!;
      const known = new Set(plan.plan.sections.map((section) => section.id));
      const unknown = (sections ?? []).filter((id) => !known.has(id));
      if (unknown.length > 0) throw invalid('sections', `The plan has no section ${unknown.join(', ')}.`);

      // One plan version per event, and no seat in two pools (D522).
      const others = (await bindings.ofEvent(pool.event_id)).filter((other) => other.pool_id !== pool.id);
      if (others.some((other) => other.venue_id !== pool.venue_id || other.plan_version !== planRow.version)) {
        throw invalid('version', `The event's other seated pools use plan version ${others[0]!.plan_version}; every pool of an event binds the same version.`);
      }
      const seats = boundSeats(plan.plan, sections);
      const taken = new Set(others.flatMap((other) => boundSeats(plan.plan, other.sections)));
      if (seats.some((seat) => taken.has(seat))) throw invalid('sections', 'Another pool of the event already sells some of these sections.');
      if (seats.length < pool.sold) throw invalid('sections', `The pool has ${pool.sold} tickets sold, more than the ${seats.length} seats bound.`);

      await bindings.save({ pool_id: pool.id, venue_id: pool.venue_id, plan_version: planRow.version, sections });
      await bindings.setCapacity(pool.id, seats.length);
      // The pool's live counter follows its capacity, as any capacity edit's does.
      if (pool.capacity === null) await this.stock.forget({ id: pool.id, event_id: pool.event_id });
      else await this.stock.adjust({ id: pool.id, event_id: pool.event_id }, seats.length - pool.capacity);
      return { object: 'pool_seating', poolId: request.poolId, venueId: BigInt(pool.venue_id), version: planRow.version, sections: sections ?? [], seatCount: seats.length };
    });
  }
}
