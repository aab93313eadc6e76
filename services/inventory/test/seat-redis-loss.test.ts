/**
 * Seat state when Redis comes back with an old copy of its data: the
 * RedisGate drops every `{ev:*` key of the earlier run, and the event's seat
 * hash is rebuilt from PostgreSQL before it is used again, so best-available
 * never picks a seat held since the copy was made. A Redis database of its
 * own (one Redis, not a cluster), so killing connections touches nothing else.
 */
import { Pool } from 'pg';
import { createLogger, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { SeatBinder } from '../src/domain/seat-binding';
import { SeatDesk } from '../src/domain/seat-desk';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { HoldBook } from '../src/storage/hold-book';
import { REDIS_RUN_KEY, RedisGate } from '../src/storage/redis-gate';
import { SeatBook, seatsKey } from '../src/storage/seat-book';
import { SeatHoldRepository } from '../src/storage/seat-hold-repository';
import { StockStore } from '../src/storage/stock-store';
import { gridPlan, seatedEvent } from './seat-support';
import { eventually } from './support';

jest.setTimeout(30_000);

const DB = 12;
const url = () => {
  const parsed = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:56379');
  parsed.pathname = `/${DB}`;
  return parsed.toString();
};

let db: Pool;
let admin: RedisClient;
let redis: RedisClient;
let gate: RedisGate;
let desk: SeatDesk;
let binder: SeatBinder;

beforeAll(async () => {
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 4 });
  admin = redisFromEnv({ ...process.env, REDIS_URL: url() });
  await admin.flushdb();
  redis = redisFromEnv({ ...process.env, REDIS_URL: url() });
  const logger = createLogger('it', 'silent');
  gate = new RedisGate(redis, logger, { retryMs: 50 });
  await gate.whenOpen(10_000);
  binder = new SeatBinder(db as never, new StockStore(redis, new CatalogRepository(db as never), new HoldBook(redis, gate), gate));
  desk = new SeatDesk(db as never, new SeatBook(redis, gate), logger);
});
afterAll(async () => {
  gate.stop();
  await admin.flushdb();
  await Promise.all([redis.quit(), admin.quit(), db.end()]);
});

it('rebuilds the seat hash after Redis returns with data from an earlier run', async () => {
  const { eventId, poolIds } = await seatedEvent(db, gridPlan(['S'], 1, 4));
  await binder.bind({ poolId: BigInt(poolIds[0]!) });
  await desk.rebuild(eventId);
  const copy = await admin.hgetall(seatsKey(eventId));
  const first = await desk.holdBestAvailable(eventId, 'first', { quantity: 2, allowSplit: false });
  expect(first.seats).toEqual(['S-A1', 'S-A2']);

  // What an append-only file could bring back: the hash from before the hold, and another run's marker.
  await admin.del(seatsKey(eventId));
  await admin.hset(seatsKey(eventId), copy);
  await admin.set(REDIS_RUN_KEY, 'an-earlier-run');
  await admin.client('KILL', 'ID', String(await redis.client('ID')));
  await eventually('the gate to drop the stale keys and open again', async () => gate.isOpen && (await admin.get(REDIS_RUN_KEY)) !== 'an-earlier-run', Boolean);
  expect(await admin.exists(seatsKey(eventId))).toBe(0);

  // The first use rebuilds from PostgreSQL: the pair held since the copy stays taken, and is not picked again.
  expect(await desk.holdBestAvailable(eventId, 'second', { quantity: 2, allowSplit: false })).toMatchObject({ seats: ['S-A3', 'S-A4'] });
  const postgres = await new SeatHoldRepository(db as never).taken(eventId, new Date());
  expect(postgres.map((row) => `${row.seat_id}:${row.hold_id}`).sort()).toEqual(['S-A1:first', 'S-A2:first', 'S-A3:second', 'S-A4:second']);
  const live = await admin.hgetall(seatsKey(eventId));
  expect(Object.keys(live).sort()).toEqual(['S-A1', 'S-A2', 'S-A3', 'S-A4', '_ready']);
  expect(live['S-A2']).toMatch(/\|first$/);
});
