import { randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { lowStockThreshold } from '../src/domain/stock-alerts';
import { HoldBook, type HoldOutcome } from '../src/storage/hold-book';
import { availabilityKey } from '../src/storage/stock-keys';

let redis: RedisClient;
let book: HoldBook;
const IN_15_MIN = () => new Date(Date.now() + 15 * 60_000);

/** A fresh event whose pools hold the given stock. */
async function event(stock: Record<string, number>): Promise<string> {
  const eventId = `t${randomBase62(10)}`;
  for (const [poolId, left] of Object.entries(stock)) await redis.set(availabilityKey(eventId, poolId), left);
  return eventId;
}
const left = async (eventId: string, poolId: string) => Number(await redis.get(availabilityKey(eventId, poolId)));
const line = (poolId: string, quantity: number, threshold = 5) => ({ poolId, quantity, threshold });

beforeAll(() => {
  redis = redisFromEnv();
  book = new HoldBook(redis);
});
afterAll(() => redis.quit());

describe('holding stock', () => {
  it('holds every pool of a checkout, or none of them', async () => {
    const eventId = await event({ a: 10, b: 3 });
    const refused = await book.hold(eventId, 'h1', [line('a', 5), line('b', 4)], IN_15_MIN());
    expect(refused).toEqual({ held: false, reason: 'short', poolId: 'b', available: 3 });
    expect([await left(eventId, 'a'), await left(eventId, 'b')]).toEqual([10, 3]);
    const held = await book.hold(eventId, 'h2', [line('a', 5), line('b', 3)], IN_15_MIN());
    expect(held.held).toBe(true);
    expect([await left(eventId, 'a'), await left(eventId, 'b')]).toEqual([5, 0]);
  });

  it('changes nothing when the same hold id is held again', async () => {
    const eventId = await event({ a: 10 });
    await book.hold(eventId, 'same', [line('a', 4)], IN_15_MIN());
    expect(await book.hold(eventId, 'same', [line('a', 4)], IN_15_MIN())).toEqual({ held: false, reason: 'already_held' });
    expect(await left(eventId, 'a')).toBe(6);
  });

  it('refuses a pool whose counter is missing, holding nothing', async () => {
    const eventId = await event({ a: 10 });
    expect(await book.hold(eventId, 'h', [line('a', 1), line('ghost', 1)], IN_15_MIN())).toEqual({ held: false, reason: 'unknown_pool', poolId: 'ghost' });
    expect(await left(eventId, 'a')).toBe(10);
  });

  it('refuses lines that name one pool twice (they must be merged first)', async () => {
    const eventId = await event({ a: 10 });
    await expect(book.hold(eventId, 'h', [line('a', 1), line('a', 2)], IN_15_MIN())).rejects.toThrow('merged');
  });

  it('never oversells: of 2,000 concurrent one-ticket holds on a pool of 500, exactly 500 succeed', async () => {
    const eventId = await event({ ga: 500 });
    const outcomes: HoldOutcome[] = await Promise.all(
      Array.from({ length: 2000 }, (_, i) => book.hold(eventId, `burst-${i}`, [line('ga', 1, lowStockThreshold(500))], IN_15_MIN())),
    );
    const held = outcomes.filter((outcome) => outcome.held);
    expect(held).toHaveLength(500);
    expect(outcomes.filter((outcome) => !outcome.held && outcome.reason === 'short')).toHaveLength(1500);
    expect(await left(eventId, 'ga')).toBe(0);
    // Each crossing is reported by exactly one hold.
    expect(held.filter((outcome) => outcome.held && outcome.lowStock.includes('ga'))).toHaveLength(1);
    expect(held.filter((outcome) => outcome.held && outcome.soldOut.includes('ga'))).toHaveLength(1);
  });

  it('keeps every pool at or above zero when concurrent checkouts take several pools at once', async () => {
    const eventId = await event({ a: 300, b: 400 });
    const outcomes = await Promise.all(Array.from({ length: 500 }, (_, i) => book.hold(eventId, `multi-${i}`, [line('a', 1), line('b', 2)], IN_15_MIN())));
    expect(outcomes.filter((outcome) => outcome.held)).toHaveLength(200);
    expect([await left(eventId, 'a'), await left(eventId, 'b')]).toEqual([100, 0]);
  });

  it('reports the low-stock crossing when a hold takes a pool to its threshold, and sold out at zero', async () => {
    const eventId = await event({ a: 12 });
    const first = await book.hold(eventId, 'x', [line('a', 6, 6)], IN_15_MIN());
    expect(first).toEqual({ held: true, lowStock: ['a'], soldOut: [] });
    const second = await book.hold(eventId, 'y', [line('a', 6, 6)], IN_15_MIN());
    expect(second).toEqual({ held: true, lowStock: [], soldOut: ['a'] });
  });
});

describe('holds asked for together', () => {
  it('takes them one after another in the order asked, each answered as if it had come alone', async () => {
    const eventId = await event({ a: 5 });
    const other = await event({ a: 1 });
    const outcomes = await Promise.all([
      book.hold(eventId, 'first', [line('a', 3, 2)], IN_15_MIN()),
      book.hold(eventId, 'second', [line('a', 3, 2)], IN_15_MIN()),
      book.hold(other, 'elsewhere', [line('a', 1, 2)], IN_15_MIN()),
      book.hold(eventId, 'third', [line('a', 2, 2)], IN_15_MIN()),
      book.hold(eventId, 'first', [line('a', 3, 2)], IN_15_MIN()),
      book.hold(eventId, 'fourth', [line('ghost', 1), line('a', 1)], IN_15_MIN()),
    ]);
    expect(outcomes).toEqual([
      { held: true, lowStock: ['a'], soldOut: [] },
      { held: false, reason: 'short', poolId: 'a', available: 2 },
      { held: true, lowStock: [], soldOut: ['a'] },
      { held: true, lowStock: [], soldOut: ['a'] },
      { held: false, reason: 'already_held' },
      { held: false, reason: 'unknown_pool', poolId: 'ghost' },
    ]);
    expect([await left(eventId, 'a'), await left(other, 'a')]).toEqual([0, 0]);
    // Each taken hold is recorded with its own tickets: releasing it gives back exactly those.
    expect(await book.release(eventId, 'first')).toBe(true);
    expect(await left(eventId, 'a')).toBe(3);
    expect(await book.expired(eventId, new Date(Date.now() + 16 * 60_000))).toEqual(['third']);
  });

  it("fails only the holds of an event whose call failed, keeping the other events' answers", async () => {
    const broken = await event({ a: 5 });
    await redis.set(availabilityKey(broken, 'a'), 'not a number');
    const fine = await event({ a: 5 });
    const [failed, held] = await Promise.allSettled([
      book.hold(broken, 'b1', [line('a', 1)], IN_15_MIN()),
      book.hold(fine, 'f1', [line('a', 5, 1)], IN_15_MIN()),
    ]);
    expect(failed.status).toBe('rejected');
    expect(held).toEqual({ status: 'fulfilled', value: { held: true, lowStock: ['a'], soldOut: ['a'] } });
    expect(await left(fine, 'a')).toBe(0);
  });
});

describe('releasing and committing', () => {
  it('returns a released hold to stock, once', async () => {
    const eventId = await event({ a: 10, b: 5 });
    await book.hold(eventId, 'r', [line('a', 3), line('b', 5)], IN_15_MIN());
    expect(await book.release(eventId, 'r')).toBe(true);
    expect(await book.release(eventId, 'r')).toBe(false);
    expect([await left(eventId, 'a'), await left(eventId, 'b')]).toEqual([10, 5]);
    expect(await book.commit(eventId, 'r')).toBe(false);
  });

  it('keeps committed tickets out of stock; a later release returns nothing', async () => {
    const eventId = await event({ a: 10 });
    await book.hold(eventId, 'c', [line('a', 4)], IN_15_MIN());
    expect(await book.commit(eventId, 'c')).toBe(true);
    expect(await book.release(eventId, 'c')).toBe(false);
    expect(await book.commit(eventId, 'c')).toBe(false);
    expect(await left(eventId, 'a')).toBe(6);
  });

  it('pays a counter below zero back before the waiting list or sale gets a ticket', async () => {
    // A rebuild counted two holds whose takes were in flight: one ticket owed, and the list wants 3.
    const eventId = await event({ a: -1 });
    await redis.set(`{ev:${eventId}}:wl-demand:a`, 3);
    await redis.set(`{ev:${eventId}}:hold:x`, JSON.stringify({ pools: [{ poolId: 'a', quantity: 1 }] }));
    await redis.set(`{ev:${eventId}}:hold:y`, JSON.stringify({ pools: [{ poolId: 'a', quantity: 2 }] }));
    expect(await book.release(eventId, 'x')).toBe(true);
    expect([await left(eventId, 'a'), Number(await redis.get(`{ev:${eventId}}:wl-reserve:a`))]).toEqual([0, 0]);
    expect(await book.hold(eventId, 'h', [line('a', 1)], IN_15_MIN())).toMatchObject({ held: false, reason: 'short' });
    expect(await book.release(eventId, 'y')).toBe(true);
    expect([await left(eventId, 'a'), Number(await redis.get(`{ev:${eventId}}:wl-reserve:a`))]).toEqual([0, 2]);
  });

  it('lists holds whose time has passed, and forgets them once released', async () => {
    const eventId = await event({ a: 10 });
    await book.hold(eventId, 'old', [line('a', 1)], new Date(Date.now() - 1000));
    await book.hold(eventId, 'new', [line('a', 1)], IN_15_MIN());
    expect(await book.expired(eventId, new Date())).toEqual(['old']);
    await book.release(eventId, 'old');
    expect(await book.expired(eventId, new Date())).toEqual([]);
    expect(await left(eventId, 'a')).toBe(9);
  });
});

describe('through an auto-pipelining client, as inventory uses it', () => {
  // Many events at once (on a cluster: over every shard), holds of one to three pools, then releases and
  // commits, all issued in the same ticks: commands for different shards and of different key counts meet
  // in auto-pipelines, which ioredis refuses whole if one of them is routed by anything but its first key.
  it('holds, releases and commits for twelve events at once, each counter exact', async () => {
    const pipelined = redisFromEnv(process.env, { connection: { enableAutoPipelining: true } });
    try {
      const pipelinedBook = new HoldBook(pipelined);
      const pools = ['a', 'b', 'c'];
      const events = await Promise.all(Array.from({ length: 12 }, () => event({ a: 20, b: 20, c: 20 })));
      const holds = events.flatMap((eventId, i) =>
        Array.from({ length: 4 }, (_, n) => ({ eventId, id: `p${n}`, lines: pools.slice(0, 1 + ((i + n) % 3)).map((pool) => line(pool, 2)) })),
      );
      const outcomes = await Promise.all(holds.map((hold) => pipelinedBook.hold(hold.eventId, hold.id, hold.lines, IN_15_MIN())));
      expect(outcomes.filter((outcome) => !outcome.held)).toEqual([]);
      // Release the first two of each event, commit the others, all at once.
      const settled = await Promise.all(
        holds.map((hold) => (hold.id === 'p0' || hold.id === 'p1' ? pipelinedBook.release(hold.eventId, hold.id) : pipelinedBook.commit(hold.eventId, hold.id))),
      );
      expect(settled.every(Boolean)).toBe(true);
      for (const eventId of events) {
        const kept = holds.filter((hold) => hold.eventId === eventId && (hold.id === 'p2' || hold.id === 'p3'));
        const expected = pools.map((pool) => 20 - 2 * kept.filter((hold) => hold.lines.some((l) => l.poolId === pool)).length);
        expect(await Promise.all(pools.map((pool) => left(eventId, pool)))).toEqual(expected);
      }
    } finally {
      await pipelined.quit();
    }
  });
});

describe('the low-stock threshold', () => {
  it('is 10% of capacity and at least 5', () => {
    expect(lowStockThreshold(1500)).toBe(150);
    expect(lowStockThreshold(45)).toBe(5);
    expect(lowStockThreshold(55)).toBe(6);
    expect(lowStockThreshold(0)).toBe(5);
  });
});
