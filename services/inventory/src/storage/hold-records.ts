/**
 * The durable record of new holds, written in batches: every hold asked for
 * in the same tick (an on-sale's concurrent checkouts) goes into one
 * multi-row INSERT, one statement and one commit instead of one each. Each
 * caller still learns whether its own row was written (false: a row with
 * that id exists, an earlier attempt's). A batch that PostgreSQL refuses is
 * written again row by row, so one bad row fails only its own hold.
 * DataLoader does the gathering (without its cache: every call writes).
 */
import DataLoader from 'dataloader';
import type { Pool } from '@partner-api/shared';

export interface NewHold {
  id: string;
  organisationId: number;
  eventId: string;
  pools: Array<{ pool_id: string; quantity: number }>;
  expiresAt: Date;
}

/** Rows in one INSERT at most; more concurrent holds make several batches. */
const MAX_BATCH = 200;

export class HoldRecords {
  private readonly batches: DataLoader<NewHold, boolean>;

  constructor(private readonly pool: Pool) {
    this.batches = new DataLoader((holds) => this.writeBatch(holds), { cache: false, maxBatchSize: MAX_BATCH });
  }

  /** Records a live hold; false when its id is already recorded. */
  record(hold: NewHold): Promise<boolean> {
    return this.batches.load(hold);
  }

  private async writeBatch(holds: readonly NewHold[]): Promise<Array<boolean | Error>> {
    if (holds.length === 1) return [(await this.write(holds)).has(holds[0]!.id)];
    let written: Set<string>;
    try {
      written = await this.write(holds);
    } catch {
      // One row PostgreSQL refuses must not fail the others: each on its own.
      return Promise.all(holds.map((hold) => this.write([hold]).then((one) => one.has(hold.id), (error: unknown) => error as Error)));
    }
    // A hold id twice in one batch (a retry racing its first attempt) is written once: only its first caller wrote it.
    const claimed = new Set<string>();
    return holds.map((hold) => {
      if (!written.has(hold.id) || claimed.has(hold.id)) return false;
      claimed.add(hold.id);
      return true;
    });
  }

  /** The ids the statement wrote. */
  private async write(holds: readonly NewHold[]): Promise<Set<string>> {
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
    return new Set(rows.map((row) => row.id));
  }
}
