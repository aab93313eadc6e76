/**
 * The catalog clock (D234) against real PostgreSQL and Redis: an event that
 * ends and an event whose ticket type's sales window opens get a new
 * `updated_at` once the moment passes, once, and their organisation's
 * catalog version changes; an event nothing happened to, and a cancelled
 * one, keep theirs. (A running inventory's own clock shares the one clock
 * row, so whichever process ticks, each crossing is stamped once.)
 */
import { Redis } from 'ioredis';
import { createLogger, createPool, randomBase62 } from '@partner-api/shared';
import { CatalogClock } from '../src/domain/catalog-clock';
import { CheckoutCatalog } from '../src/domain/checkout-catalog';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { CatalogVersions, organisationCatalogVersionKey } from '../src/storage/catalog-versions';

const organisationId = 880_000 + Math.floor(Math.random() * 9_999);
const pool = createPool({ url: process.env.DATABASE_URL!, schema: 'inventory', max: 4, applicationName: 'catalog-clock-it' });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:56379', { maxRetriesPerRequest: 2 });
const clock = new CatalogClock(pool, new CheckoutCatalog(new CatalogRepository(pool), new CatalogVersions(redis)), createLogger('it', 'silent'));
const tag = randomBase62(6).toLowerCase();

async function event(name: string, startsInMs: number, endsInMs: number | null, status = 'published'): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO events (organisation_id, slug, title, status, starts_at, ends_at, timezone)
     VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond', 'Australia/Melbourne') RETURNING id`,
    [organisationId, `clock-${tag}-${name}`, name, status, startsInMs, endsInMs],
  );
  return rows[0]!.id;
}

const updatedAt = async (id: string) => (await pool.query<{ updated_at: Date }>('SELECT updated_at FROM events WHERE id = $1', [id])).rows[0]!.updated_at.getTime();

afterAll(async () => {
  await pool.end();
  redis.disconnect();
});

it('stamps the events whose status or ticket types time changed, once, and marks their catalogs changed', async () => {
  const ending = await event('ending', -3_600_000, 1_500);
  const opening = await event('opening', 86_400_000, null);
  await pool.query(
    `INSERT INTO ticket_types (event_id, name, price_cents, booking_fee_cents, sale_starts_at) VALUES ($1, 'GA', 1000, 0, now() + interval '1500 milliseconds')`,
    [opening],
  );
  const quiet = await event('quiet', 86_400_000, null);
  const cancelled = await event('cancelled', -3_600_000, 1_500, 'cancelled');
  await clock.tick();
  const before = { ending: await updatedAt(ending), opening: await updatedAt(opening), quiet: await updatedAt(quiet), cancelled: await updatedAt(cancelled) };
  const versionBefore = await redis.get(organisationCatalogVersionKey(organisationId));

  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await clock.tick();
  const after = { ending: await updatedAt(ending), opening: await updatedAt(opening), quiet: await updatedAt(quiet), cancelled: await updatedAt(cancelled) };

  expect(after.ending).toBeGreaterThan(before.ending);
  expect(after.opening).toBeGreaterThan(before.opening);
  expect(after.quiet).toBe(before.quiet);
  expect(after.cancelled).toBe(before.cancelled);
  expect(await redis.get(organisationCatalogVersionKey(organisationId))).not.toBe(versionBefore);

  await clock.tick();
  expect(await updatedAt(ending)).toBe(after.ending);
  expect(await updatedAt(opening)).toBe(after.opening);
});
