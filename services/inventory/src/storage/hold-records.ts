/**
 * The durable record of new holds, written in batches (batchWrites): the
 * holds asked for in one tick share one multi-row INSERT. Each caller still
 * learns whether its own row was written (false: a row with that id exists,
 * an earlier attempt's), and a row PostgreSQL refuses fails only its own hold.
 */
import { batchWrites, type Pool } from '@partner-api/shared';

export interface NewHold {
  id: string;
  organisationId: number;
  eventId: string;
  pools: Array<{ pool_id: string; quantity: number }>;
  expiresAt: Date;
}

export class HoldRecords {
  /** Records a live hold; false when its id is already recorded. */
  readonly record: (hold: NewHold) => Promise<boolean>;

  constructor(private readonly pool: Pool) {
    this.record = batchWrites({ key: (hold: NewHold) => hold.id, write: (holds) => this.write(holds) });
  }

  private async write(holds: readonly NewHold[]): Promise<boolean[]> {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at)
       SELECT id, organisation_id, event_id, pools, 'held', expires_at
         FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::jsonb[], $5::timestamptz[])
              AS batch (id, organisation_id, event_id, pools, expires_at)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        holds.map((hold) => hold.id),
        holds.map((hold) => hold.organisationId),
        holds.map((hold) => hold.eventId),
        holds.map((hold) => JSON.stringify(hold.pools)),
        holds.map((hold) => hold.expiresAt),
      ],
    );
    const written = new Set(rows.map((row) => row.id));
    return holds.map((hold) => written.has(hold.id));
  }
}
