/**
 * The outbox's backlog, read when Prometheus scrapes: rows not yet
 * published and the age of the oldest. A relay that cannot reach Kafka (or
 * has stopped) shows as a growing age long before anything is lost. Both
 * queries use the partial index on unpublished rows. A scrape that cannot
 * read PostgreSQL leaves the last figures (the service is not ready then,
 * which alerts of its own).
 */
import { Gauge, type Registry } from 'prom-client';
import type { Pool } from 'pg';
import { scrapeRead } from './scrape-read';

export function registerOutboxBacklog(registry: Registry, pool: Pool): void {
  const read = async () => {
    const { rows } = await pool.query<{ waiting: number; oldest_seconds: number | null }>(
      `SELECT (SELECT count(*)::int FROM outbox WHERE published_at IS NULL) AS waiting,
              (SELECT extract(epoch FROM now() - created_at)::float8 FROM outbox
                WHERE published_at IS NULL ORDER BY id LIMIT 1) AS oldest_seconds`,
    );
    return rows[0]!;
  };
  // One query serves both gauges of a scrape.
  let current: Promise<{ waiting: number; oldest_seconds: number | null } | undefined> | undefined;
  const once = () => {
    current ??= scrapeRead(read).finally(() => setImmediate(() => (current = undefined)));
    return current;
  };
  new Gauge({
    name: 'outbox_rows_waiting',
    help: 'Outbox rows written but not yet published to Kafka',
    registers: [registry],
    async collect() {
      const backlog = await once();
      if (backlog) this.set(backlog.waiting);
    },
  });
  new Gauge({
    name: 'outbox_oldest_age_seconds',
    help: 'Age of the oldest unpublished outbox row (0 when none waits)',
    registers: [registry],
    async collect() {
      const backlog = await once();
      if (backlog) this.set(backlog.oldest_seconds ?? 0);
    },
  });
}
