/**
 * Which pools report their stock to the metrics: an on-sale taking holds now
 * comes before an event whose live holds are all older, however many.
 */
import { Pool } from 'pg';
import { randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { HotPools } from '../src/storage/hot-pools';
import { availabilityKey } from '../src/storage/stock-keys';

const organisationId = 535_600 + Math.floor(Math.random() * 99);
let db: Pool;
let redis: RedisClient;

beforeAll(() => {
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
  redis = redisFromEnv();
});
afterAll(async () => {
  await db.end();
  await redis.quit();
});

/** A published event on sale since `openedMinutesAgo`, one pool of 10,000 with its counter in Redis, and `holds` live holds (for two minutes more) taken `takenMinutesAgo`. */
async function onSale(openedMinutesAgo: number, holds: number, takenMinutesAgo: number) {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO events (organisation_id, slug, title, status, starts_at, timezone, created_at, on_sale_at)
     VALUES ($1, $2, 'Hot pools', 'published', now() + interval '30 days', 'UTC', now() - make_interval(mins => $3), now() - make_interval(mins => $3)) RETURNING id`,
    [organisationId, `hot-${randomBase62(8).toLowerCase()}`, openedMinutesAgo],
  );
  const eventId = rows[0]!.id;
  const pool = (await db.query<{ id: string }>('INSERT INTO pools (event_id, name, capacity) VALUES ($1, $2, 10000) RETURNING id', [eventId, 'GA'])).rows[0]!.id;
  await db.query(
    `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at, created_at)
     SELECT md5(random()::text), $1, $2, '[]', 'held', now() + interval '2 minutes', now() - make_interval(mins => $4) FROM generate_series(1, $3)`,
    [organisationId, eventId, holds, takenMinutesAgo],
  );
  await redis.set(availabilityKey(eventId, pool), 10_000 - holds);
  return { eventId, pool };
}

it('ranks pools by holds taken in the last minute, before older live holds and before recency', async () => {
  const stale = await onSale(30, 1_200, 10); // more holds, all abandoned ten minutes ago
  // An on-sale taking holds now: more in the last minute than any other suite takes, so it leads whatever else the database holds.
  const busy = await onSale(60, 1_000, 0);
  const hot = new HotPools(db as never, redis, { anyOpen: true, isOpenFor: () => true }, 2);
  const reported = await hot.remaining();
  const ours = reported.filter((entry) => [stale.eventId, busy.eventId].includes(entry.eventId));
  // Of these two, the busy one is first; every other event in the database is ranked the same way around them.
  expect(reported[0]).toEqual({ eventId: busy.eventId, poolId: busy.pool, remaining: 9_000 });
  expect(ours.map((entry) => entry.eventId)).toEqual([busy.eventId, stale.eventId].slice(0, ours.length));
});
