/**
 * Live availability per pool, in Redis: the hot path later holds move. Keys
 * of one event share the hash tag `{ev:<id>}` so scripts over an event run
 * on one Redis Cluster shard. A missing counter (a new pool, or a Redis that
 * lost its data) is rebuilt from PostgreSQL, the durable record, as
 * capacity − sold − live holds, together with the records of those live
 * holds (HoldBook.restore), so that each of them returns its tickets when
 * it is released and a hold whose take was in flight is not taken twice.
 * Concurrent rebuilders agree: only the first restore of a counter writes.
 */
import { defineScript, isCluster, sharedReadsPerTurn, type RedisClient } from '@partner-api/shared';
import type { HoldBook, RestoredHold, StockGate } from './hold-book';
import { availabilityKey, RETURN_TICKETS_LUA, waitlistDemandKey, waitlistReserveKey } from './stock-keys';

/** The fields of a pool the counters need (a CatalogRepository pool row has them). */
export interface StockPool {
  id: string;
  event_id: string;
  /** Null for an uncapped pool, which has no counter. */
  capacity: number | null;
}

export type LiveHold = RestoredHold;

// Moves an existing counter only; a missing one is rebuilt from PostgreSQL on read.
// KEYS: 1 counter, 2 waitlist reserve, 3 waitlist demand. ARGV: 1 delta.
// Added capacity is returned like released tickets (a deficit first, then the waiting list's reserve).
const ADJUST = `${RETURN_TICKETS_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local delta = tonumber(ARGV[1])
if delta > 0 then return return_tickets(KEYS[1], KEYS[2], KEYS[3], delta) end
return redis.call('INCRBY', KEYS[1], delta)
`;

type AdjustCommand = { adjustStock(counter: string, reserve: string, demand: string, delta: number): Promise<number | null> };

/** What the durable record says about one pool: what is left, and the live holds on it. */
export interface PoolSnapshot {
  available: number;
  holds: LiveHold[];
}

export interface SettledHold {
  id: string;
  eventId: string;
  state: 'released' | 'committed';
}

/** The durable record, as the rebuild reads it (CatalogRepository). */
export interface DurableStock {
  /** Per capped pool id, read in one snapshot. */
  stockSnapshot(poolIds: string[]): Promise<Map<string, PoolSnapshot>>;
  /** The holds among `ids` that are no longer live. */
  settledHolds(ids: string[]): Promise<SettledHold[]>;
}

export class StockStore {
  /** Rebuilds in progress in this process, per pool id: concurrent readers share one. */
  private readonly rebuilding = new Map<string, Promise<void>>();
  /** One MGET per set of counters per turn: the holds of one batch read the same pools (keys joined by newlines). */
  private readonly mgetOfTurn = sharedReadsPerTurn((keys: string) => this.redis.mget(keys.split('\n')));

  constructor(
    private readonly redis: RedisClient,
    private readonly durable: DurableStock,
    private readonly book: HoldBook,
    private readonly gate?: StockGate,
  ) {
    defineScript(redis, 'adjustStock', ADJUST, 3);
  }

  /** Available tickets per pool id; null for uncapped pools. */
  async availability(pools: StockPool[]): Promise<Map<string, number | null>> {
    for (const eventId of new Set(pools.map((pool) => pool.event_id))) this.gate?.check(eventId);
    const result = new Map<string, number | null>();
    const capped = pools.filter((pool) => pool.capacity !== null);
    for (const pool of pools) if (pool.capacity === null) result.set(pool.id, null);
    if (capped.length === 0) return result;

    const values = await this.counters(capped);
    const missing = capped.filter((_, index) => values[index] === null);
    if (missing.length > 0) {
      await this.rebuild(missing);
      const rebuilt = await Promise.all(missing.map((pool) => this.redis.get(availabilityKey(pool.event_id, pool.id))));
      // Gone again already (Redis lost it once more): report none left rather than guess.
      missing.forEach((pool, index) => result.set(pool.id, Math.max(0, Number(rebuilt[index] ?? 0))));
    }
    capped.forEach((pool, index) => {
      if (values[index] !== null) result.set(pool.id, Math.max(0, Number(values[index])));
    });
    return result;
  }

  /** The counters of `pools` as stored (null when missing): one MGET on one Redis; on a cluster one per event, whose keys share a slot. */
  private async counters(pools: StockPool[]): Promise<Array<string | null>> {
    if (!isCluster(this.redis)) return this.mgetOfTurn(pools.map((pool) => availabilityKey(pool.event_id, pool.id)).join('\n'));
    const byEvent = new Map<string, StockPool[]>();
    for (const pool of pools) byEvent.set(pool.event_id, [...(byEvent.get(pool.event_id) ?? []), pool]);
    const found = new Map<StockPool, string | null>();
    await Promise.all(
      [...byEvent].map(async ([eventId, ofEvent]) => {
        const values = await this.mgetOfTurn(ofEvent.map((pool) => availabilityKey(eventId, pool.id)).join('\n'));
        ofEvent.forEach((pool, index) => found.set(pool, values[index] ?? null));
      }),
    );
    return pools.map((pool) => found.get(pool) ?? null);
  }

  /** A pool's capacity changed by `delta`: move what is left by the same amount. */
  async adjust(pool: Pick<StockPool, 'event_id' | 'id'>, delta: number): Promise<void> {
    this.gate?.check(pool.event_id);
    await (this.redis as unknown as AdjustCommand).adjustStock(
      availabilityKey(pool.event_id, pool.id),
      waitlistReserveKey(pool.event_id, pool.id),
      waitlistDemandKey(pool.event_id, pool.id),
      delta,
    );
  }

  /** Forget a counter so the next read rebuilds it (a pool became uncapped or capped). */
  async forget(pool: Pick<StockPool, 'event_id' | 'id'>): Promise<void> {
    this.gate?.check(pool.event_id);
    // The reserve goes with it: the rebuild counts reserved tickets as available again.
    await this.redis.del(availabilityKey(pool.event_id, pool.id), waitlistReserveKey(pool.event_id, pool.id));
  }

  private async rebuild(pools: StockPool[]): Promise<void> {
    const pending = pools.filter((pool) => !this.rebuilding.has(pool.id));
    if (pending.length > 0) {
      const work = this.restore(pending);
      const shared = work.finally(() => pending.forEach((pool) => this.rebuilding.delete(pool.id)));
      pending.forEach((pool) => this.rebuilding.set(pool.id, shared));
    }
    await Promise.all(pools.map((pool) => this.rebuilding.get(pool.id)));
  }

  private async restore(pools: StockPool[]): Promise<void> {
    const snapshot = await this.durable.stockSnapshot(pools.map((pool) => pool.id));
    const restored = new Set<string>();
    await Promise.all(
      pools.map(async (pool) => {
        const { available, holds } = snapshot.get(pool.id) ?? { available: 0, holds: [] };
        if (await this.book.restore(pool.event_id, pool.id, available, holds)) holds.forEach((hold) => restored.add(hold.id));
      }),
    );
    // A hold released or sold between the snapshot and the restore found no
    // record to drop; the restore has just written one back. Settle those
    // again (both scripts act at most once per record).
    for (const hold of await this.durable.settledHolds([...restored])) {
      if (hold.state === 'committed') await this.book.commit(hold.eventId, hold.id);
      else await this.book.release(hold.eventId, hold.id);
    }
  }
}
