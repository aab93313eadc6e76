/**
 * An event's seats: the plan versions its seated pools are bound to, read
 * and indexed once per process (versions never change, D509), and which
 * pool each seat sells from.
 */
import { readSeatingPlanJson, type SeatingPlan } from '@partner-api/shared';
import type { Queryable } from '../storage/catalog-repository';
import { SeatBindings, type SeatBindingRow } from '../storage/seat-bindings';
import { SeatingPlanRepository } from '../storage/seating-plan-repository';
import { indexSeatingPlan, type SeatingIndex } from './best-available';

export interface IndexedPlan {
  plan: SeatingPlan;
  index: SeatingIndex;
}

export interface EventSeats {
  /** Per seat id, the pool it sells from. */
  poolOf: Map<string, string>;
  bindings: SeatBindingRow[];
  /** The plan the bindings share (D522), undefined when no pool is seated. */
  plan: IndexedPlan | undefined;
}

/** The seats of a binding's sections, in plan order. */
export function boundSeats(plan: SeatingPlan, sections: readonly string[] | null): string[] {
  const wanted = sections === null ? undefined : new Set(sections);
  return plan.sections.filter((section) => wanted === undefined || wanted.has(section.id)).flatMap((section) => section.rows.flatMap((row) => row.seats.map((seat) => seat.id)));
}

export class PlanCache {
  private readonly plans = new Map<string, Promise<IndexedPlan | undefined>>();

  /** A stored plan version, parsed and indexed; undefined when there is no such version. */
  load(db: Queryable, venueId: string, version: number): Promise<IndexedPlan | undefined> {
    const key = `${venueId}/${version}`;
    let found = this.plans.get(key);
    if (!found) {
      found = new SeatingPlanRepository(db).find(venueId, version).then((row) => {
        if (!row) return undefined;
        const reading = readSeatingPlanJson(row.document_json);
        if (!reading.ok) throw new Error(`stored seating plan ${key} no longer reads`);
        return { plan: reading.plan, index: indexSeatingPlan(reading.plan) };
      });
      found.then((plan) => plan === undefined && this.plans.delete(key), () => this.plans.delete(key));
      this.plans.set(key, found);
    }
    return found;
  }

  async eventSeats(db: Queryable, eventId: string): Promise<EventSeats> {
    const bindings = await new SeatBindings(db).ofEvent(eventId);
    const poolOf = new Map<string, string>();
    const first = bindings[0];
    if (!first) return { poolOf, bindings, plan: undefined };
    const plan = await this.load(db, first.venue_id, first.plan_version);
    if (!plan) throw new Error(`seating plan ${first.venue_id}/${first.plan_version} is missing`);
    for (const binding of bindings) for (const seat of boundSeats(plan.plan, binding.sections)) poolOf.set(seat, binding.pool_id);
    return { poolOf, bindings, plan };
  }
}
