/**
 * Stock remaining in the hot pools, for the metrics: a bounded set, so a
 * catalog of thousands of events never becomes thousands of series. Hot
 * means a capped pool of an event on sale now (published, its sale opened,
 * not started yet), ranked by its live holds taken in the last minute
 * (checkouts happening now), then by all its live holds, then by the most
 * recently opened sale; at most `limit` pools. Counters are read
 * from Redis as they stand and never rebuilt here: a pool whose counter is
 * missing, or every pool of a Redis shard whose gate is closed, is left out.
 */
import type { Pool, RedisClient } from '@partner-api/shared';
import type { RedisGate } from './redis-gate';
import { availabilityKey } from './stock-keys';

export interface PoolStock {
  eventId: string;
  poolId: string;
  remaining: number;
}

export class HotPools {
  constructor(
    private readonly pool: Pool,
    private readonly redis: RedisClient,
    private readonly gate: Pick<RedisGate, 'anyOpen' | 'isOpenFor'>,
    private readonly limit: number,
  ) {}

  async remaining(): Promise<PoolStock[]> {
    if (this.limit === 0 || !this.gate.anyOpen) return [];
    const { rows } = await this.pool.query<{ pool_id: string; event_id: string }>(
      `SELECT p.id AS pool_id, p.event_id
         FROM pools p
         JOIN events e ON e.id = p.event_id
         LEFT JOIN (SELECT event_id, count(*) FILTER (WHERE created_at > now() - interval '1 minute') AS recent, count(*) AS live
                      FROM holds WHERE state = 'held' GROUP BY event_id) h ON h.event_id = e.id
        WHERE e.status = 'published' AND p.capacity IS NOT NULL
          AND coalesce(e.on_sale_at, e.created_at) <= now() AND e.starts_at > now()
        ORDER BY coalesce(h.recent, 0) DESC, coalesce(h.live, 0) DESC, coalesce(e.on_sale_at, e.created_at) DESC, p.id
        LIMIT $1`,
      [this.limit],
    );
    // A closed shard's counters are not this run's: its pools are left out until it is rebuilt.
    const open = rows.filter((row) => this.gate.isOpenFor(row.event_id));
    const counters = await Promise.all(open.map((row) => this.redis.get(availabilityKey(row.event_id, row.pool_id))));
    return open.flatMap((row, index) => {
      const counter = counters[index];
      return counter === null || counter === undefined ? [] : [{ eventId: row.event_id, poolId: row.pool_id, remaining: Math.max(0, Number(counter)) }];
    });
  }
}
