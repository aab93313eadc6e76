/** Writes keys' last-used times (domain/key-usage.ts) to api_keys, many keys per statement. */
import type { Pool } from '@partner-api/shared';

export class KeyUsageStore {
  constructor(private readonly pool: Pick<Pool, 'query'>) {}

  /**
   * One UPDATE for the whole batch. greatest() keeps the newest time, so a
   * replica whose batch is older than one another replica already wrote
   * (or a retried batch) never moves `last_used_at` backwards. Ids of keys
   * deleted meanwhile match nothing.
   */
  async recordUse(keyIds: number[], usedAt: Date[]): Promise<void> {
    if (keyIds.length === 0) return;
    await this.pool.query(
      `UPDATE api_keys SET last_used_at = greatest(coalesce(last_used_at, v.at), v.at)
         FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, at)
        WHERE api_keys.id = v.id`,
      [keyIds, usedAt],
    );
  }
}
