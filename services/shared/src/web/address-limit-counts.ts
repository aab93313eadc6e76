/**
 * Per-address limit counts (an express-rate-limit Store) in Redis, so that
 * every process of a service counts against one allowance: the dashboard's
 * sign-in limit (D366) and the hosted pages' waiting-list joins (D371).
 * Kept in each process, N pods gave an address N times the limit, and a
 * restart forgot it.
 *
 * A key's window starts with its first hit and ends a window later, as
 * express-rate-limit's own store counts. rate-limit-redis does the same
 * with its own SCRIPT LOAD and EVALSHA, which a Redis Cluster client with
 * auto-pipelining sends to the wrong shard; the script here goes through
 * `defineScript`, which routes by key on a cluster. Each call touches one
 * key, so a prefix needs no hash tag.
 */
import type { IncrementResponse, Options, Store } from 'express-rate-limit';
import { defineScript, type RedisClient } from '../redis';

/** Counts a hit; returns the hits in the window and the milliseconds left of it. */
const COUNT_HIT = `
local hits = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {hits, left}`;

/** Takes a hit back, only while its window lasts: a key whose window ended is not made again without one. */
const UNCOUNT_HIT = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 0`;

type Counting = RedisClient & {
  countAddressHit(key: string, windowMs: number): Promise<[number, number]>;
  uncountAddressHit(key: string): Promise<number>;
};

export class AddressLimitCounts implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;

  /** Defines its script on the client: call before the client's first command (see defineScript). */
  constructor(
    private readonly redis: RedisClient,
    readonly prefix: string,
  ) {
    defineScript(redis, 'countAddressHit', COUNT_HIT, 1);
    defineScript(redis, 'uncountAddressHit', UNCOUNT_HIT, 1);
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<IncrementResponse> {
    const [hits, left] = await (this.redis as Counting).countAddressHit(this.prefix + key, this.windowMs);
    return { totalHits: hits, resetTime: new Date(Date.now() + left) };
  }

  async decrement(key: string): Promise<void> {
    await (this.redis as Counting).uncountAddressHit(this.prefix + key);
  }

  async resetKey(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}
