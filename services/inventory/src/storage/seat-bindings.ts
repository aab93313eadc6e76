/** The `pool_seating` table: which plan version (and which of its sections) a seated pool sells. */
import type { Queryable } from './catalog-repository';
import { soldTickets } from './catalog-repository';

export interface SeatBindingRow {
  pool_id: string;
  venue_id: string;
  plan_version: number;
  /** Null: every section of the plan. */
  sections: string[] | null;
}

/** A pool about to be bound, locked, with its event's venue and its tickets sold. */
export interface BindablePool {
  id: string;
  event_id: string;
  venue_id: string | null;
  capacity: number | null;
  sold: number;
}

export class SeatBindings {
  constructor(private readonly db: Queryable) {}

  /**
   * The pool, locked, with its tickets sold; undefined when there is none.
   * A sale appends to pool_sales without locking the pool (D175): its
   * capacity changes here, so new sales wait until the transaction ends.
   */
  async lockPool(poolId: string): Promise<BindablePool | undefined> {
    await this.db.query('LOCK TABLE pool_sales IN SHARE MODE');
    const { rows } = await this.db.query<BindablePool>(
      `SELECT p.id, p.event_id, e.venue_id, p.capacity, ${soldTickets('p')} AS sold
         FROM pools p JOIN events e ON e.id = p.event_id WHERE p.id = $1 FOR UPDATE OF p`,
      [poolId],
    );
    return rows[0];
  }

  /** The bindings of every pool of an event. */
  async ofEvent(eventId: string): Promise<SeatBindingRow[]> {
    const { rows } = await this.db.query<SeatBindingRow>(
      `SELECT s.pool_id, s.venue_id, s.plan_version, s.sections
         FROM pool_seating s JOIN pools p ON p.id = s.pool_id WHERE p.event_id = $1 ORDER BY s.pool_id`,
      [eventId],
    );
    return rows;
  }

  async save(binding: SeatBindingRow): Promise<void> {
    await this.db.query(
      `INSERT INTO pool_seating (pool_id, venue_id, plan_version, sections) VALUES ($1, $2, $3, $4)
       ON CONFLICT (pool_id) DO UPDATE SET venue_id = EXCLUDED.venue_id, plan_version = EXCLUDED.plan_version, sections = EXCLUDED.sections`,
      [binding.pool_id, binding.venue_id, binding.plan_version, binding.sections],
    );
  }

  async setCapacity(poolId: string, capacity: number): Promise<void> {
    await this.db.query('UPDATE pools SET capacity = $2 WHERE id = $1', [poolId, capacity]);
  }
}
