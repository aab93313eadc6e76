/**
 * Per-address limit counts in the real Redis: one window per key from its
 * first hit, shared by every store on the same Redis (D366, D371).
 */
import type { Options } from 'express-rate-limit';
import { randomBase62 } from '../src/events';
import { redisFromEnv, type RedisClient } from '../src/redis';
import { AddressLimitCounts } from '../src/web/address-limit-counts';

let redis: RedisClient;
const prefix = `it:limit:${randomBase62(8)}:`;
const store = (windowMs: number) => {
  const counts = new AddressLimitCounts(redis, prefix);
  counts.init({ windowMs } as Options);
  return counts;
};

beforeAll(() => {
  redis = redisFromEnv();
});

afterAll(async () => {
  await redis.quit();
});

describe('AddressLimitCounts', () => {
  it('counts the hits of one key across stores, within one window that starts at the first hit', async () => {
    const [one, other] = [store(60_000), store(60_000)];
    const first = await one.increment('198.51.100.7');
    // A second hit 300 ms later: a window that started again would end 300 ms later than the first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await other.increment('198.51.100.7');
    expect([first.totalHits, second.totalHits]).toEqual([1, 2]);
    // Each reset is the client's clock plus the key's remaining time, so the two differ by a few ms of latency.
    expect(Math.abs(second.resetTime!.getTime() - first.resetTime!.getTime())).toBeLessThan(150);
    expect(first.resetTime!.getTime() - Date.now()).toBeGreaterThan(55_000);
    expect((await one.increment('198.51.100.8')).totalHits).toBe(1);
  });

  it('starts again once the window is over, and takes a hit back only while its window lasts', async () => {
    // A window long enough for four commands on a busy machine, short enough to wait out.
    const counts = store(1_000);
    await counts.increment('203.0.113.9');
    await counts.increment('203.0.113.9');
    await counts.decrement('203.0.113.9');
    expect((await counts.increment('203.0.113.9')).totalHits).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await counts.decrement('203.0.113.9');
    expect(await redis.exists(`${prefix}203.0.113.9`)).toBe(0);
    expect((await counts.increment('203.0.113.9')).totalHits).toBe(1);
    await counts.resetKey('203.0.113.9');
    expect((await counts.increment('203.0.113.9')).totalHits).toBe(1);
  });
});
