/**
 * Seat holds on real PostgreSQL and Redis: all or nothing, recorded in
 * seat_holds before Redis takes them, never two holders of a seat under
 * concurrent buyers, expiry and release free seats, a repeated hold id gets
 * the same answer, a lost Redis hash is rebuilt from PostgreSQL, and
 * best-available picks again when another buyer wins its pick.
 */
import { Pool } from 'pg';
import { createLogger, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { SeatBinder } from '../src/domain/seat-binding';
import { SeatDesk, SeatsUnavailableError } from '../src/domain/seat-desk';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { HoldBook } from '../src/storage/hold-book';
import { RedisGate } from '../src/storage/redis-gate';
import { SeatBook, seatsKey } from '../src/storage/seat-book';
import { SeatHoldRepository } from '../src/storage/seat-hold-repository';
import { StockStore } from '../src/storage/stock-store';
import { gridPlan, seatedEvent } from './seat-support';

jest.setTimeout(30_000);

let db: Pool;
let redis: RedisClient;
let binder: SeatBinder;
let book: SeatBook;
/** The desks' clock: tests move it to expire holds. */
let now = Date.now();
let desk: SeatDesk;

beforeAll(() => {
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 12 });
  redis = redisFromEnv();
  binder = new SeatBinder(db as never, new StockStore(redis, new CatalogRepository(db as never), new HoldBook(redis)));
  book = new SeatBook(redis);
  desk = new SeatDesk(db as never, book, createLogger('it', 'silent'), undefined, () => new Date(now));
});
afterAll(async () => {
  await db.end();
  await redis.quit();
});
beforeEach(() => {
  now = Date.now();
});

/** An event whose one pool is bound to a grid of `rows` × `perRow` seats in section S. */
async function seatedGrid(rows = 2, perRow = 10): Promise<string> {
  const { eventId, poolIds } = await seatedEvent(db, gridPlan(['S'], rows, perRow));
  await binder.bind({ poolId: BigInt(poolIds[0]!) });
  return eventId;
}

/** Seat → holder in PostgreSQL (live holds and sales) and in Redis (live holds and sales). */
async function holders(eventId: string): Promise<{ postgres: Record<string, string>; redis: Record<string, string> }> {
  const rows = await new SeatHoldRepository(db as never).taken(eventId, new Date(now));
  const live = (await book.seats(eventId)) ?? new Map();
  const inRedis: Record<string, string> = {};
  for (const [seat, state] of live) if (state.state !== 'held' || state.expiresAt > now) inRedis[seat] = state.state === 'blocked' ? 'blocked' : `${state.state}:${state.holdId}`;
  return { postgres: Object.fromEntries(rows.map((row) => [row.seat_id, `${row.state}:${row.hold_id}`])), redis: inRedis };
}

const conflict = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => error);

describe('holding chosen seats', () => {
  it('holds all the seats or none, naming the taken ones', async () => {
    const eventId = await seatedGrid();
    await desk.holdSeats(eventId, 'first', ['S-A1', 'S-A2']);
    const refused = await conflict(desk.holdSeats(eventId, 'second', ['S-A2', 'S-A3', 'S-A4']));
    expect(refused).toBeInstanceOf(SeatsUnavailableError);
    expect(refused).toMatchObject({ code: 'exceeds_availability', param: 'seats', seats: ['S-A2'], message: 'These seats are no longer available: S-A2.' });
    const state = await holders(eventId);
    expect(state.postgres).toEqual({ 'S-A1': 'held:first', 'S-A2': 'held:first' });
    expect(state.redis).toEqual(state.postgres);
  });

  it('refuses seats the event does not sell, twice named, or none, writing nothing', async () => {
    const eventId = await seatedGrid();
    for (const seats of [['S-Z9'], ['S-A1', 'S-A1'], []]) {
      expect(await conflict(desk.holdSeats(eventId, 'bad', seats))).toMatchObject({ code: 'parameter_invalid', param: 'seats' });
    }
    expect(await holders(eventId)).toEqual({ postgres: {}, redis: {} });
  });

  it('of 40 concurrent holds over overlapping seats, exactly one wins each seat; no seat has two holders in PostgreSQL or Redis', async () => {
    const eventId = await seatedGrid();
    // Every buyer wants S-A5 and one seat of the row: one wins, the rest are refused whole.
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => desk.holdSeats(eventId, `buyer-${i}`, ['S-A5', `S-${i % 2 ? 'A' : 'B'}${(i % 10) + 1}`])));
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(SeatsUnavailableError);
    const state = await holders(eventId);
    const winner = (won[0] as PromiseFulfilledResult<{ holdId: string; seats: string[] }>).value;
    expect(state.postgres).toEqual(Object.fromEntries(winner.seats.map((seat) => [seat, `held:${winner.holdId}`])));
    expect(state.redis).toEqual(state.postgres);
  });

  it('frees seats when the hold expires, and when it is released', async () => {
    const eventId = await seatedGrid();
    await desk.holdSeats(eventId, 'brief', ['S-A1'], 60);
    expect(await conflict(desk.holdSeats(eventId, 'later', ['S-A1']))).toBeInstanceOf(SeatsUnavailableError);
    now += 61_000;
    expect((await desk.holdSeats(eventId, 'later', ['S-A1'])).seats).toEqual(['S-A1']);
    expect(await desk.release(eventId, 'later')).toEqual(['S-A1']);
    expect(await desk.release(eventId, 'later')).toEqual([]);
    expect(await holders(eventId)).toEqual({ postgres: {}, redis: {} });
    expect((await desk.holdSeats(eventId, 'third', ['S-A1'])).seats).toEqual(['S-A1']);
  });

  it('releases a lapsed hold while 10 buyers take its seats: every buyer is answered (held or taken), never hold_failed', async () => {
    const eventId = await seatedGrid(1, 20);
    const row = Array.from({ length: 20 }, (_, i) => `S-A${i + 1}`);
    await desk.holdSeats(eventId, 'lapsed', row, 60);
    now += 61_000;
    const buyers = Array.from({ length: 10 }, (_, i) => desk.holdSeats(eventId, `taker-${i}`, [...row].reverse().slice(i, i + 4)));
    const [released, ...outcomes] = await Promise.allSettled([desk.release(eventId, 'lapsed'), ...buyers]);
    expect(released!.status).toBe('fulfilled');
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(SeatsUnavailableError);
    const state = await holders(eventId);
    expect(state.redis).toEqual(state.postgres);
  });

  it('answers hold_failed (a retry is safe) and writes nothing while Redis may not be used', async () => {
    const eventId = await seatedGrid();
    const closed = new RedisGate(redis, createLogger('it', 'silent'));
    closed.stop();
    const shut = new SeatDesk(db as never, new SeatBook(redis, closed), createLogger('it', 'silent'));
    expect(await conflict(shut.holdSeats(eventId, 'shut', ['S-A1']))).toMatchObject({ code: 'hold_failed' });
    expect(await conflict(shut.holdBestAvailable(eventId, 'shut', { quantity: 2, allowSplit: false }))).toMatchObject({ code: 'hold_failed' });
    expect((await holders(eventId)).postgres).toEqual({});
  });

  it('answers a repeated hold id with the same seats and expiry, and takes a hold PostgreSQL recorded but Redis never did', async () => {
    const eventId = await seatedGrid();
    const first = await desk.holdSeats(eventId, 'again', ['S-A3', 'S-A4']);
    now += 5_000;
    const repeat = await desk.holdSeats(eventId, 'again', ['S-A4', 'S-A3']);
    expect(repeat).toEqual(first);
    expect(await conflict(desk.holdSeats(eventId, 'again', ['S-A5']))).toMatchObject({ code: 'parameter_invalid', param: 'seats' });

    // A crash between PostgreSQL and Redis: the retry finds the record and takes it in Redis.
    const until = new Date(now + 600_000);
    await new SeatHoldRepository(db as never).take(eventId, 'crashed', ['S-B1'], until, new Date(now));
    expect((await holders(eventId)).redis['S-B1']).toBeUndefined();
    expect(await desk.holdSeats(eventId, 'crashed', ['S-B1'])).toEqual({ holdId: 'crashed', seats: ['S-B1'], expiresAt: until });
    expect((await holders(eventId)).redis['S-B1']).toBe('held:crashed');
  });

  it('sells a hold for good: released or expired later, its seats stay sold', async () => {
    const eventId = await seatedGrid();
    await desk.holdSeats(eventId, 'buyer', ['S-A1', 'S-A2'], 60);
    expect(await desk.sell(eventId, 'buyer')).toEqual(['S-A1', 'S-A2']);
    expect(await desk.sell(eventId, 'buyer')).toEqual(['S-A1', 'S-A2']);
    expect(await desk.release(eventId, 'buyer')).toEqual([]);
    now += 120_000;
    expect(await conflict(desk.holdSeats(eventId, 'other', ['S-A2']))).toMatchObject({ seats: ['S-A2'] });
    const state = await holders(eventId);
    expect(state.postgres).toEqual({ 'S-A1': 'sold:buyer', 'S-A2': 'sold:buyer' });
    expect(state.redis).toEqual(state.postgres);
    // An expired hold is not sold.
    await desk.holdSeats(eventId, 'late', ['S-A3'], 60);
    now += 61_000;
    expect(await conflict(desk.sell(eventId, 'late'))).toMatchObject({ code: 'exceeds_availability', param: 'hold_id' });
  });

  it('answers seats taken while Redis still holds one PostgreSQL freed (a give-back cut short), undoing the new record', async () => {
    const eventId = await seatedGrid();
    await desk.holdSeats(eventId, 'cut-short', ['S-A1'], 60);
    await new SeatHoldRepository(db as never).release(eventId, 'cut-short'); // recorded free; Redis never heard
    expect(await conflict(desk.holdSeats(eventId, 'next', ['S-A1', 'S-A2']))).toMatchObject({ seats: ['S-A1'] });
    expect((await holders(eventId)).postgres).toEqual({});
    now += 61_000;
    expect((await desk.holdSeats(eventId, 'next', ['S-A1', 'S-A2'])).seats).toEqual(['S-A1', 'S-A2']);
  });

  it('rebuilds a lost seat hash from PostgreSQL: holds and sales stay taken, expired holds free', async () => {
    const eventId = await seatedGrid();
    await desk.holdSeats(eventId, 'sold', ['S-A1']);
    await desk.sell(eventId, 'sold');
    await desk.holdSeats(eventId, 'live', ['S-A2', 'S-A3']);
    await desk.holdSeats(eventId, 'lapsing', ['S-A4'], 30);
    const before = await holders(eventId);
    now += 31_000;

    await redis.del(seatsKey(eventId)); // what the RedisGate's drop of {ev:* leaves
    expect(await conflict(desk.holdSeats(eventId, 'newcomer', ['S-A3', 'S-A5']))).toMatchObject({ seats: ['S-A3'] });
    expect((await desk.holdSeats(eventId, 'newcomer', ['S-A4', 'S-A5'])).seats).toEqual(['S-A4', 'S-A5']);
    const after = await holders(eventId);
    expect(after.redis).toEqual(after.postgres);
    expect(after.postgres).toEqual({ ...before.postgres, 'S-A4': 'held:newcomer', 'S-A5': 'held:newcomer' });

    // The live hold's release after the rebuild frees its seats in both.
    await desk.release(eventId, 'live');
    expect(Object.keys((await holders(eventId)).redis).sort()).toEqual(['S-A1', 'S-A4', 'S-A5']);
  });
});

describe('blocking seats', () => {
  it('blocks free seats all or nothing; blocked seats are never held nor picked, and are free again once unblocked', async () => {
    const eventId = await seatedGrid(1, 4);
    await desk.holdSeats(eventId, 'holder', ['S-A1']);
    expect(await conflict(desk.block(eventId, ['S-A1', 'S-A2']))).toMatchObject({ seats: ['S-A1'] });
    expect((await holders(eventId)).postgres).toEqual({ 'S-A1': 'held:holder' });

    expect(await desk.block(eventId, ['S-A3', 'S-A2'])).toEqual(['S-A2', 'S-A3']);
    expect(await desk.block(eventId, ['S-A2'])).toEqual(['S-A2']);
    expect(await conflict(desk.holdSeats(eventId, 'buyer', ['S-A2']))).toMatchObject({ seats: ['S-A2'] });
    expect(await conflict(desk.holdBestAvailable(eventId, 'pair', { quantity: 2, allowSplit: false }))).toMatchObject({ code: 'exceeds_availability', param: 'quantity' });
    const state = await holders(eventId);
    expect(state.postgres).toEqual({ 'S-A1': 'held:holder', 'S-A2': 'blocked:null', 'S-A3': 'blocked:null' });
    expect(state.redis).toEqual({ 'S-A1': 'held:holder', 'S-A2': 'blocked', 'S-A3': 'blocked' });

    // Blocks survive a Redis loss.
    await redis.del(seatsKey(eventId));
    expect(await conflict(desk.holdSeats(eventId, 'buyer', ['S-A3']))).toMatchObject({ seats: ['S-A3'] });

    expect(await desk.unblock(eventId, ['S-A2', 'S-A4'])).toEqual(['S-A2']);
    expect((await desk.holdSeats(eventId, 'buyer', ['S-A2'])).seats).toEqual(['S-A2']);
  });
});

describe('holding the best available seats', () => {
  it('holds the best pair, and repeats it for the same hold id', async () => {
    const eventId = await seatedGrid(2, 6);
    const pair = await desk.holdBestAvailable(eventId, 'pair', { quantity: 2, allowSplit: false });
    expect(pair.seats).toEqual(['S-A3', 'S-A4']);
    expect(await desk.holdBestAvailable(eventId, 'pair', { quantity: 2, allowSplit: false })).toEqual(pair);
    expect((await desk.holdBestAvailable(eventId, 'next', { quantity: 2, allowSplit: false })).seats).not.toContain('S-A3');
  });

  it("picks only seats of the pool named, within the sections asked for", async () => {
    const { eventId, poolIds } = await seatedEvent(db, gridPlan(['stalls', 'balcony'], 1, 4), 2);
    await binder.bind({ poolId: BigInt(poolIds[0]!), sections: ['stalls'] });
    await binder.bind({ poolId: BigInt(poolIds[1]!), sections: ['balcony'] });
    expect((await desk.holdBestAvailable(eventId, 'up', { quantity: 2, allowSplit: false, poolId: poolIds[1]! })).seats).toEqual(['balcony-A1', 'balcony-A2']);
    expect(await conflict(desk.holdBestAvailable(eventId, 'none', { quantity: 1, allowSplit: false, poolId: poolIds[1]!, sections: ['stalls'] }))).toMatchObject({ code: 'exceeds_availability' });
    expect(await conflict(desk.holdBestAvailable(eventId, 'none', { quantity: 1, allowSplit: false, poolId: '999999999' }))).toMatchObject({ code: 'parameter_invalid', param: 'pool_id' });
  });

  it('under 30 concurrent buyers of 2 on 40 seats: 20 are seated, no seat twice, the rest told it is sold out', async () => {
    const eventId = await seatedGrid(4, 10);
    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => desk.holdBestAvailable(eventId, `crowd-${i}`, { quantity: 2, allowSplit: false })));
    const seated = outcomes.filter((outcome) => outcome.status === 'fulfilled').map((outcome) => (outcome as PromiseFulfilledResult<{ seats: string[] }>).value.seats);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason as { code?: string });
    const allSeats = seated.flat();
    expect(new Set(allSeats).size).toBe(allSeats.length);
    expect(seated).toHaveLength(20);
    // Refused: sold out, or lost every pick to other buyers (a conflict after the retries).
    for (const reason of refused) expect(reason.code).toBe('exceeds_availability');
    const state = await holders(eventId);
    expect(Object.keys(state.postgres)).toHaveLength(allSeats.length);
    expect(state.redis).toEqual(state.postgres);
  });
});
