/**
 * GET /events reads a page and its venues, pools and ticket types in one
 * statement. Its views must be exactly what the per-table reads give (the
 * path single events and checkouts still take): same ids, prices, times to
 * the millisecond, availability, order and paging, for every filter.
 */
import { Redis } from 'ioredis';
import { create } from '@bufbuild/protobuf';
import { createPool, gen, randomBase62, toApiJson, type RequestContext } from '@partner-api/shared';
import { Catalog, PAGE_TTL_MS } from '../src/domain/catalog';
import { CatalogRepository, type EventListQuery } from '../src/storage/catalog-repository';
import { CatalogVersions } from '../src/storage/catalog-versions';
import { HoldBook } from '../src/storage/hold-book';
import { availabilityKey } from '../src/storage/stock-keys';
import { StockStore } from '../src/storage/stock-store';

const organisationId = 870_000 + Math.floor(Math.random() * 9_999);
const ctx: RequestContext = { organisationId, mode: 'live', keyId: 0, requestId: 'it' };
const pool = createPool({ url: process.env.DATABASE_URL!, schema: 'inventory', max: 4, applicationName: 'catalog-page-it' });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:56379', { maxRetriesPerRequest: 2 });
const repository = new CatalogRepository(pool);
const stock = new StockStore(redis, repository, new HoldBook(redis));
const versions = new CatalogVersions(redis);
const catalog = new Catalog(repository, stock, versions, { publicSiteUrl: 'https://tickets.example.com' });
const venueIds: string[] = [];
const tag = randomBase62(6).toLowerCase();

beforeAll(async () => {
  for (const [i, lat] of [[0, -37.8136], [1, null]] as const) {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO venues (name, slug, line1, line2, locality, state, postal_code, country, lat, lng, url, phone)
       VALUES ($1, $2, '1 Main St', $3, 'Melbourne', 'VIC', '3000', 'AU', $4, $5, $6, NULL) RETURNING id`,
      [`Hall ${i}`, `it-hall-${tag}-${i}`, i === 0 ? 'Level 2' : null, lat, lat === null ? null : 144.9631, i === 0 ? 'https://hall.example.com' : null],
    );
    venueIds.push(rows[0]!.id);
  }
  // 30 events over past and future, varied: no venue, no pools, uncapped and capped pools, multi-pool and hidden types.
  for (let i = 0; i < 30; i += 1) {
    const startsAt = new Date(Date.now() + (i - 10) * 86_400_000 + 123.456);
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO events (organisation_id, slug, title, summary, status, starts_at, ends_at, timezone, doors, on_sale_at, venue_id, categories, marked_sold_out)
       VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $6::timestamptz + interval '3 hours 0.000789 seconds', 'Australia/Melbourne', $7, $8, $9, $10, $11) RETURNING id`,
      [
        organisationId,
        `it-page-${tag}-${i}`,
        `Show ${i}`,
        i % 3 === 0 ? null : `Summary ${i}`,
        ['published', 'draft', 'cancelled', 'published'][i % 4],
        startsAt.toISOString().replace('Z', '456+00:00'),
        i % 2 ? '7:30pm' : null,
        i % 5 === 0 ? new Date(Date.now() + 3_600_000.5) : null,
        i % 7 === 0 ? null : venueIds[i % 2],
        i % 2 ? ['music'] : [],
        i === 4,
      ],
    );
    const eventId = rows[0]!.id;
    if (i % 6 === 5) continue;
    const pools: string[] = [];
    for (const capacity of i % 4 === 1 ? [null] : [100 + i, 20]) {
      const created = await pool.query<{ id: string }>('INSERT INTO pools (event_id, name, capacity, sold) VALUES ($1, $2, $3, $4) RETURNING id', [
        eventId,
        `Pool ${capacity}`,
        capacity,
        capacity === 20 ? 20 : i,
      ]);
      pools.push(created.rows[0]!.id);
    }
    for (let t = 0; t < 3; t += 1) {
      const created = await pool.query<{ id: string }>(
        `INSERT INTO ticket_types (event_id, name, description, price_cents, booking_fee_cents, hidden, sort_order, sale_starts_at, sale_ends_at, max_per_order)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 8) RETURNING id`,
        [eventId, `Type ${t}`, t === 1 ? 'Seats up front' : null, 5_000 + 1_250 * t + i, 450, t === 2, 3 - t, t === 0 ? '2026-01-02T03:04:05.678901Z' : null, null],
      );
      const positions = t === 1 ? [...pools].reverse() : pools.slice(0, 1);
      for (const [position, poolId] of positions.entries()) {
        await pool.query('INSERT INTO ticket_type_pools (ticket_type_id, pool_id, position) VALUES ($1, $2, $3)', [created.rows[0]!.id, poolId, position]);
      }
    }
  }
}, 60_000);

afterAll(async () => {
  const events = `SELECT id FROM events WHERE organisation_id = ${organisationId}`;
  await pool.query(`DELETE FROM ticket_type_pools WHERE ticket_type_id IN (SELECT id FROM ticket_types WHERE event_id IN (${events}))`);
  await pool.query(`DELETE FROM ticket_types WHERE event_id IN (${events})`);
  await pool.query(`DELETE FROM pools WHERE event_id IN (${events})`);
  await pool.query(`DELETE FROM events WHERE organisation_id = ${organisationId}`);
  await pool.query('DELETE FROM venues WHERE id = ANY($1::bigint[])', [venueIds]);
  await pool.end();
  redis.disconnect();
}, 60_000);

/** What the per-table reads give for the same page. */
async function separately(request: { status: string; time: string; limit: number; after?: [string, string] }, now: Date) {
  const query: EventListQuery = {
    organisationId,
    status: request.status as EventListQuery['status'],
    time: request.time as EventListQuery['time'],
    terms: undefined,
    updatedSince: undefined,
    limit: request.limit,
    after: request.after,
    now,
  };
  const page = await repository.listEvents(query);
  return { data: await catalog.views(page.rows), hasMore: page.hasMore, last: page.last };
}

it.each([
  ['all', 'all'],
  ['published', 'upcoming'],
  ['all', 'past'],
  ['cancelled', 'all'],
  ['ended', 'all'],
  ['draft', 'upcoming'],
])('status=%s time=%s: one statement renders what the per-table reads render, page by page', async (status, time) => {
  let after = '';
  let pages = 0;
  let position: [string, string] | undefined;
  for (;;) {
    const hydrated = await catalog.listEvents(ctx, { status, time, limit: 7, after });
    const expected = await separately({ status, time, limit: 7, after: position }, new Date());
    expect(hydrated.data).toEqual(expected.data);
    expect(hydrated.pageInfo.hasMore).toBe(expected.hasMore);
    pages += 1;
    if (!hydrated.pageInfo.hasMore) break;
    after = hydrated.pageInfo.nextAfter;
    position = expected.last as [string, string];
  }
  if (status === 'all' && time === 'all') {
    expect(pages).toBe(5); // 30 events, 7 a page
  }
});

it('carries every part of the view: venue, sub-millisecond times, prices, multi-pool types, live availability', async () => {
  const { data } = await catalog.listEvents(ctx, { status: 'all', time: 'all', limit: 25, after: '' });
  expect(data).toHaveLength(25);
  expect(data.some((event) => event.venue?.lat === -37.8136 && event.venue.address?.line2 === 'Level 2')).toBe(true);
  expect(data.some((event) => event.venue === undefined)).toBe(true);
  expect(data.some((event) => event.ticketing?.ticketsRemaining !== undefined && event.ticketing.ticketsRemaining > 0n)).toBe(true);
  expect(data.some((event) => event.ticketing?.ticketsRemaining === undefined && event.ticketing?.minPrice !== undefined)).toBe(true);
  expect(data.every((event) => typeof event.startsAt === 'string')).toBe(true);
});

describe('a kept page', () => {
  let clock = Date.now();
  const kept = new Catalog(repository, stock, versions, { publicSiteUrl: 'https://tickets.example.com' }, () => new Date(clock));
  const firstPage = () => kept.listEvents(ctx, { status: 'all', time: 'all', limit: 5, after: '' });
  const rename = (eventId: bigint, title: string) => pool.query('UPDATE events SET title = $2 WHERE id = $1', [eventId.toString(), title]);

  it('is served until the organisation changes its catalog or the page is older than its TTL; availability stays live', async () => {
    const first = await firstPage();
    const event = first.data.find((view) => view.ticketing?.ticketsRemaining !== undefined)!;
    const id = event.id!;
    const original = event.title;

    // A write that did not announce itself is not seen while the page is young...
    await rename(id, 'Quiet rename');
    expect((await firstPage()).data.find((view) => view.id === id)!.title).toBe(original);
    // ...but what is left of its stock is read live on every request.
    const [poolId] = (await repository.poolsForEvents([id.toString()])).filter((row) => row.capacity !== null).map((row) => row.id);
    const key = availabilityKey(id.toString(), poolId!);
    const before = Number(await redis.get(key));
    await redis.decrby(key, 3);
    const after = (await firstPage()).data.find((view) => view.id === id)!;
    expect(after.title).toBe(original);
    expect(Number(after.ticketing!.ticketsRemaining)).toBe(Number(event.ticketing!.ticketsRemaining) - 3);
    await redis.set(key, String(before));

    // ...and is once the page is older than its TTL.
    clock += PAGE_TTL_MS;
    expect((await firstPage()).data.find((view) => view.id === id)!.title).toBe('Quiet rename');

    // A catalog write of the organisation (any of its events) is seen at once.
    await rename(id, 'Announced rename');
    await versions.changed(organisationId, first.data.at(-1)!.id!.toString());
    expect((await firstPage()).data.find((view) => view.id === id)!.title).toBe('Announced rename');
    await rename(id, original!);
    await versions.changed(organisationId, id.toString());
  });

  it('is kept per filter and cursor, and shared by concurrent first reads', async () => {
    const reads = jest.spyOn(repository, 'listHydratedEvents');
    clock += PAGE_TTL_MS;
    const pages = await Promise.all(Array.from({ length: 10 }, () => firstPage()));
    expect(new Set(pages.map((page) => JSON.stringify(page.data.map((view) => view.id!.toString())))).size).toBe(1);
    expect(reads).toHaveBeenCalledTimes(1);
    await kept.listEvents(ctx, { status: 'all', time: 'all', limit: 5, after: pages[0]!.pageInfo.nextAfter });
    await kept.listEvents(ctx, { status: 'published', time: 'all', limit: 5, after: '' });
    expect(reads).toHaveBeenCalledTimes(3);
    reads.mockRestore();
  });
});

it.each([
  ['all', 'all'],
  ['published', 'upcoming'],
  ['all', 'past'],
])('status=%s time=%s: the page rendered as JSON is what the gateway writes for its messages, with live availability', async (status, time) => {
  let after = '';
  for (;;) {
    const typed = await catalog.listEvents(ctx, { status, time, limit: 7, after });
    const rendered = await catalog.listEventsJson(ctx, { status, time, limit: 7, after });
    expect(JSON.parse(rendered.json!.toString('utf8'))).toEqual(typed.data.map((view) => toApiJson(gen.inventory.EventSchema, create(gen.inventory.EventSchema, view))));
    expect(rendered.pageInfo).toEqual(typed.pageInfo);
    if (!typed.pageInfo.hasMore) break;
    after = typed.pageInfo.nextAfter;
  }
  // Availability moves between two calls on one kept page: the JSON follows it, sold out included.
  const page = await catalog.listEvents(ctx, { status: 'all', time: 'all', limit: 25, after: '' });
  const capped = page.data.find((view) => view.ticketing?.ticketsRemaining !== undefined && view.ticketing.ticketsRemaining > 0n && !view.soldOut)!;
  const pools = (await repository.poolsForEvents([capped.id!.toString()])).filter((row) => row.capacity !== null);
  const saved = await Promise.all(pools.map((row) => redis.get(availabilityKey(capped.id!.toString(), row.id))));
  await Promise.all(pools.map((row) => redis.set(availabilityKey(capped.id!.toString(), row.id), '0')));
  try {
    const sold = (JSON.parse((await catalog.listEventsJson(ctx, { status: 'all', time: 'all', limit: 25, after: '' })).json!.toString('utf8')) as Array<{ id: number; sold_out: boolean; ticketing: { tickets_remaining: number | null } }>).find((event) => event.id === Number(capped.id))!;
    expect(sold).toMatchObject({ sold_out: true, ticketing: { tickets_remaining: 0 } });
  } finally {
    await Promise.all(pools.map((row, index) => redis.set(availabilityKey(capped.id!.toString(), row.id), saved[index]!)));
  }
});

it('leaves out the JSON a caller already has (its tag), and sends it again once availability moves it', async () => {
  const request = { status: 'all', time: 'all', limit: 25, after: '' };
  const first = await catalog.listEventsJson(ctx, request);
  expect(first).toMatchObject({ unchanged: false, tag: expect.stringMatching(/^[\w-]{22}$/) });
  const again = await catalog.listEventsJson(ctx, request, first.tag);
  expect(again).toEqual({ tag: first.tag, unchanged: true, pageInfo: first.pageInfo });
  // A caller with another page's tag (or none) gets the bytes.
  expect((await catalog.listEventsJson(ctx, request, 'some-other-page')).json).toEqual(first.json);

  const views = (await catalog.listEvents(ctx, request)).data;
  const capped = views.find((view) => view.ticketing?.ticketsRemaining !== undefined && view.ticketing.ticketsRemaining > 0n && !view.soldOut)!;
  const pool = (await repository.poolsForEvents([capped.id!.toString()])).find((row) => row.capacity !== null)!;
  const key = availabilityKey(capped.id!.toString(), pool.id);
  const saved = (await redis.get(key))!;
  await redis.set(key, String(Number(saved) - 1));
  try {
    const moved = await catalog.listEventsJson(ctx, request, first.tag);
    expect(moved.unchanged).toBe(false);
    expect(moved.tag).not.toBe(first.tag);
    expect(moved.json!.equals(first.json!)).toBe(false);
    // Another process renders the same bytes under the same tag: the tag is their hash.
    const elsewhere = new Catalog(repository, stock, versions, { publicSiteUrl: 'https://tickets.example.com' });
    expect((await elsewhere.listEventsJson(ctx, request)).tag).toBe(moved.tag);
  } finally {
    await redis.set(key, saved);
  }
});
