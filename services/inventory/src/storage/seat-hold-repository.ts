/**
 * The `seat_holds` table, the durable truth of an event's taken seats. Its
 * key (event, seat) allows one row per seat, so a seat is recorded held or
 * sold by one hold at a time; a hold whose time has passed counts as free
 * and is overwritten by the next one.
 */
import type { Queryable } from './catalog-repository';

export type SeatState = 'held' | 'sold' | 'blocked';

export interface SeatStateRow {
  seat_id: string;
  state: SeatState;
  hold_id: string | null;
  expires_at: Date | null;
}

export class SeatHoldRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Records `seatIds` held by `holdId` until `expiresAt`, each seat only if
   * it is free, its hold has expired, or it is this hold's already (which
   * keeps its time); answers the seats recorded. Run in a transaction and
   * roll back unless all were: all or nothing. Seats go in sorted order so
   * two holds over the same seats wait for each other without deadlock.
   */
  async take(eventId: string, holdId: string, seatIds: readonly string[], expiresAt: Date, now: Date): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `INSERT INTO seat_holds AS s (event_id, seat_id, state, hold_id, expires_at)
         SELECT $1, seat, 'held', $2, $4 FROM unnest($3::text[]) AS seat ORDER BY seat
       ON CONFLICT (event_id, seat_id) DO UPDATE
         SET hold_id = EXCLUDED.hold_id, updated_at = now(),
             expires_at = CASE WHEN s.hold_id = EXCLUDED.hold_id AND s.expires_at > $5 THEN s.expires_at ELSE EXCLUDED.expires_at END
         WHERE s.state = 'held' AND (s.expires_at <= $5 OR s.hold_id = EXCLUDED.hold_id)
       RETURNING seat_id`,
      [eventId, holdId, [...seatIds].sort(), expiresAt, now],
    );
    return rows.map((row) => row.seat_id);
  }

  /** Records `seatIds` blocked where free, expired or blocked already; answers those seats (all or nothing, as `take`). */
  async block(eventId: string, seatIds: readonly string[], now: Date): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `INSERT INTO seat_holds AS s (event_id, seat_id, state)
         SELECT $1, seat, 'blocked' FROM unnest($2::text[]) AS seat ORDER BY seat
       ON CONFLICT (event_id, seat_id) DO UPDATE SET state = 'blocked', hold_id = NULL, expires_at = NULL, updated_at = now()
         WHERE s.state = 'blocked' OR (s.state = 'held' AND s.expires_at <= $3)
       RETURNING seat_id`,
      [eventId, [...seatIds].sort(), now],
    );
    return rows.map((row) => row.seat_id);
  }

  /** Frees the blocked seats among `seatIds`; answers them. */
  async unblock(eventId: string, seatIds: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `DELETE FROM seat_holds WHERE event_id = $1 AND seat_id = ANY($2::text[]) AND state = 'blocked' RETURNING seat_id`,
      [eventId, seatIds],
    );
    return rows.map((row) => row.seat_id).sort();
  }

  /** The seats among `seatIds` that another hold, a sale or a block has at `now`. */
  async unavailable(eventId: string, holdId: string, seatIds: readonly string[], now: Date): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `SELECT seat_id FROM seat_holds WHERE event_id = $1 AND seat_id = ANY($3::text[])
          AND (state <> 'held' OR (expires_at > $4 AND hold_id <> $2)) ORDER BY seat_id`,
      [eventId, holdId, seatIds, now],
    );
    return rows.map((row) => row.seat_id);
  }

  /** The seats a hold has (held, not yet expired at `now`, or sold). */
  async seatsOf(eventId: string, holdId: string, now: Date): Promise<SeatStateRow[]> {
    const { rows } = await this.db.query<SeatStateRow>(
      `SELECT seat_id, state, hold_id, expires_at FROM seat_holds
        WHERE event_id = $1 AND hold_id = $2 AND (state = 'sold' OR expires_at > $3) ORDER BY seat_id`,
      [eventId, holdId, now],
    );
    return rows;
  }

  /** Frees the seats the hold still holds; answers them. Rows are locked in seat order, as `take` takes them, so the two never deadlock. */
  async release(eventId: string, holdId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `DELETE FROM seat_holds WHERE event_id = $1 AND seat_id IN (
         SELECT seat_id FROM seat_holds WHERE event_id = $1 AND hold_id = $2 AND state = 'held' ORDER BY seat_id FOR UPDATE)
         AND hold_id = $2 AND state = 'held' RETURNING seat_id`,
      [eventId, holdId],
    );
    return rows.map((row) => row.seat_id).sort();
  }

  /** Marks the hold's seats still held at `now` sold; answers them. */
  async sell(eventId: string, holdId: string, now: Date): Promise<string[]> {
    const { rows } = await this.db.query<{ seat_id: string }>(
      `UPDATE seat_holds SET state = 'sold', expires_at = NULL, updated_at = now()
        WHERE event_id = $1 AND seat_id IN (
          SELECT seat_id FROM seat_holds WHERE event_id = $1 AND hold_id = $2 AND state = 'held' AND expires_at > $3 ORDER BY seat_id FOR UPDATE)
          AND hold_id = $2 AND state = 'held' AND expires_at > $3 RETURNING seat_id`,
      [eventId, holdId, now],
    );
    return rows.map((row) => row.seat_id).sort();
  }

  /** Every seat of the event taken at `now`: sold, blocked, or held and not expired (what Redis is rebuilt from). */
  async taken(eventId: string, now: Date): Promise<SeatStateRow[]> {
    const { rows } = await this.db.query<SeatStateRow>(
      `SELECT seat_id, state, hold_id, expires_at FROM seat_holds
        WHERE event_id = $1 AND (state <> 'held' OR expires_at > $2)`,
      [eventId, now],
    );
    return rows;
  }
}
