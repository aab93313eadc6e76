/**
 * Every statement on `holds` and `pool_sales` but the batched hold insert
 * (HoldRecords) and the reads of the counter rebuild and the stranded-hold
 * settler (CatalogRepository, StockStore's durable side). A hold's
 * `pools` lists what it takes from each capped pool; a sale is appended to
 * `pool_sales` (sold = pools.sold + those rows), never added to the pool
 * row, so the sales of a hot pool do not queue on one row.
 */
import type { Pool, PoolClient } from '@partner-api/shared';

export type HoldState = 'held' | 'released' | 'committed';

export interface HoldLine {
  pool_id: string;
  quantity: number;
}

export interface HoldRow {
  id: string;
  event_id: string;
  organisation_id: string;
  pools: HoldLine[];
  state: HoldState;
  expires_at: Date;
}

/** What a new or renewed hold records. */
export interface HoldRecord {
  id: string;
  organisationId: number;
  eventId: string;
  pools: HoldLine[];
  expiresAt: Date;
}

export class HoldRepository {
  constructor(private readonly pool: Pool) {}

  async find(id: string): Promise<HoldRow | undefined> {
    const { rows } = await this.pool.query<HoldRow>('SELECT * FROM holds WHERE id = $1', [id]);
    return rows[0];
  }

  /** The hold, locked until `client`'s transaction ends. */
  async lock(client: PoolClient, id: string): Promise<HoldRow | undefined> {
    const { rows } = await client.query<HoldRow>('SELECT * FROM holds WHERE id = $1 FOR UPDATE', [id]);
    return rows[0];
  }

  async markReleased(client: PoolClient, id: string): Promise<void> {
    await client.query("UPDATE holds SET state = 'released', updated_at = now() WHERE id = $1", [id]);
  }

  /** A hold that was never taken: released if still live. */
  async releaseIfHeld(id: string): Promise<void> {
    await this.pool.query("UPDATE holds SET state = 'released', updated_at = now() WHERE id = $1 AND state = 'held'", [id]);
  }

  /** Sells a locked live hold: its lines become sale rows and the hold `committed`. */
  async sell(client: PoolClient, hold: HoldRow): Promise<void> {
    await client.query(
      `INSERT INTO pool_sales (hold_id, pool_id, quantity)
       SELECT $1, (line->>'pool_id')::bigint, (line->>'quantity')::integer FROM jsonb_array_elements($2::jsonb) line`,
      [hold.id, JSON.stringify(hold.pools)],
    );
    await client.query("UPDATE holds SET state = 'committed', updated_at = now() WHERE id = $1", [hold.id]);
  }

  /**
   * Undoes a locked hold's sale: its sale rows go (a sale from before
   * `pool_sales` existed was added to the pool row itself, and is taken off
   * it) and it is live again for `ttlSeconds`.
   */
  async unsell(client: PoolClient, hold: HoldRow, ttlSeconds: number): Promise<void> {
    const unsold = await client.query('DELETE FROM pool_sales WHERE hold_id = $1', [hold.id]);
    if (unsold.rowCount === 0) {
      for (const line of hold.pools) await client.query('UPDATE pools SET sold = sold - $2 WHERE id = $1', [line.pool_id, line.quantity]);
    }
    await client.query(`UPDATE holds SET state = 'held', expires_at = now() + make_interval(secs => $2), updated_at = now() WHERE id = $1`, [hold.id, ttlSeconds]);
  }

  /**
   * Releases up to `limit` live holds lapsed by `now`, in one statement;
   * rows another transaction holds (a commit racing its expiry) are skipped.
   */
  async releaseLapsed(now: Date, limit: number): Promise<Array<{ id: string; event_id: string }>> {
    const { rows } = await this.pool.query<{ id: string; event_id: string }>(
      `UPDATE holds SET state = 'released', updated_at = now()
        WHERE id IN (SELECT id FROM holds WHERE state = 'held' AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, event_id`,
      [now, limit],
    );
    return rows;
  }

  /** Takes a released hold again under its id: only the same organisation's, for the same event. */
  async renewReleased(record: HoldRecord): Promise<boolean> {
    const renewed = await this.pool.query(
      `UPDATE holds SET state = 'held', pools = $4, expires_at = $5, updated_at = now()
       WHERE id = $1 AND organisation_id = $2 AND event_id = $3 AND state = 'released'`,
      [record.id, record.organisationId, record.eventId, JSON.stringify(record.pools), record.expiresAt],
    );
    return renewed.rowCount === 1;
  }

  /** Records a live hold, or takes a released one of the same organisation and event again; false when the id is live or sold. */
  async recordOrRenew(record: HoldRecord): Promise<boolean> {
    const recorded = await this.pool.query(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at) VALUES ($1, $2, $3, $4, 'held', $5)
       ON CONFLICT (id) DO UPDATE SET state = 'held', pools = excluded.pools, expires_at = excluded.expires_at, updated_at = now()
         WHERE holds.state = 'released' AND holds.organisation_id = excluded.organisation_id AND holds.event_id = excluded.event_id`,
      [record.id, record.organisationId, record.eventId, JSON.stringify(record.pools), record.expiresAt],
    );
    return recorded.rowCount === 1;
  }

  /**
   * Records a give-back as a live hold and undoes that much of the sale
   * (negative sale rows), once per id: false when the id was recorded before.
   */
  async recordGiveBack(client: PoolClient, record: HoldRecord): Promise<boolean> {
    const inserted = await client.query(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at) VALUES ($1, $2, $3, $4, 'held', $5) ON CONFLICT (id) DO NOTHING`,
      [record.id, record.organisationId, record.eventId, JSON.stringify(record.pools), record.expiresAt],
    );
    if (inserted.rowCount !== 1) return false;
    await client.query(
      `INSERT INTO pool_sales (hold_id, pool_id, quantity) SELECT $1, pool_id, -quantity FROM unnest($2::bigint[], $3::integer[]) AS t(pool_id, quantity)`,
      [record.id, record.pools.map((line) => line.pool_id), record.pools.map((line) => line.quantity)],
    );
    return true;
  }
}
