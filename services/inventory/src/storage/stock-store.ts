/**
 * Live availability per pool, in Redis: the hot path later holds move. Keys
 * of one event share the hash tag `{ev:<id>}` so scripts over an event run
 * on one Redis Cluster shard. A missing key is (re)built from PostgreSQL,
 * the durable record, with SET NX so concurrent builders agree.
 */
import type { Redis } from 'ioredis';
import type { PoolRow } from './catalog-repository';

export const availabilityKey = (eventId: string, poolId: string) => `{ev:${eventId}}:avail:${poolId}`;

/** What the durable record says is left per pool id: capacity less sold less live holds. */
export type DurableAvailability = (poolIds: string[]) => Promise<Map<string, number>>;

export class StockStore {
  constructor(
    private readonly redis: Redis,
    private readonly durable: DurableAvailability,
  ) {}

  /** Available tickets per pool id; null for uncapped pools. */
  async availability(pools: PoolRow[]): Promise<Map<string, number | null>> {
    const result = new Map<string, number | null>();
    const capped = pools.filter((pool) => pool.capacity !== null);
    for (const pool of pools) if (pool.capacity === null) result.set(pool.id, null);
    if (capped.length === 0) return result;

    const keys = capped.map((pool) => availabilityKey(pool.event_id, pool.id));
    const values = await Promise.all(keys.map((key) => this.redis.get(key)));
    const missing = capped.filter((_, index) => values[index] === null);
    if (missing.length > 0) {
      const durable = await this.durable(missing.map((pool) => pool.id));
      await Promise.all(missing.map((pool) => this.redis.set(availabilityKey(pool.event_id, pool.id), durable.get(pool.id) ?? 0, 'NX')));
      const rebuilt = await Promise.all(missing.map((pool) => this.redis.get(availabilityKey(pool.event_id, pool.id))));
      missing.forEach((pool, index) => result.set(pool.id, Number(rebuilt[index])));
    }
    capped.forEach((pool, index) => {
      if (values[index] !== null) result.set(pool.id, Math.max(0, Number(values[index])));
    });
    return result;
  }

  /** A pool's capacity changed by `delta`: move what is left by the same amount. */
  async adjust(pool: Pick<PoolRow, 'event_id' | 'id'>, delta: number): Promise<void> {
    const key = availabilityKey(pool.event_id, pool.id);
    // Only an existing counter moves; a missing one is rebuilt from PostgreSQL on read.
    await this.redis.eval(
      "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end return nil",
      1,
      key,
      delta,
    );
  }

  /** Forget a counter so the next read rebuilds it (a pool became uncapped or capped). */
  async forget(pool: Pick<PoolRow, 'event_id' | 'id'>): Promise<void> {
    await this.redis.del(availabilityKey(pool.event_id, pool.id));
  }
}
