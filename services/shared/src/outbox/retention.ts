/**
 * Retention of published outbox rows. A row has done its work once Kafka
 * has it: consumers read the topic, and the webhooks service keeps its own
 * copy of every event for the feed. Kept for `OUTBOX_RETENTION_HOURS` after
 * it was written (a week by default, Kafka's own default retention, so a
 * row outlives the message it became), then deleted a bounded batch at a
 * time, oldest first. A row never published is kept however old it is: the
 * relay still owes it to Kafka.
 */
import type { Pool } from 'pg';

/** Deletes up to `batch` rows written before `before` and published; returns how many went. */
export async function pruneOutbox(pool: Pool, before: Date, batch: number): Promise<number> {
  // created_at follows the table's physical order, so its BRIN index finds the old pages without a scan.
  const { rowCount } = await pool.query(
    `DELETE FROM outbox WHERE id IN (
       SELECT id FROM outbox WHERE created_at < $1 AND published_at IS NOT NULL ORDER BY id LIMIT $2)`,
    [before, batch],
  );
  return rowCount ?? 0;
}
