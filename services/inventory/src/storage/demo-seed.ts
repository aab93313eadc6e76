/**
 * Demo catalog: Australian venues and events for one organisation, covering
 * every event status and ticket type status, multi-pool and seated types and
 * an uncapped pool. Each event carries its venue's time zone. Idempotent:
 * slugs that exist are left alone (but for that zone). Times are relative
 * to `now`, so the demo stays current whenever it is seeded.
 */
import type { Pool, PoolClient } from '@partner-api/shared';
import { inTransaction } from '@partner-api/shared';

const DAY = 86_400_000;
const HOUR = 3_600_000;

interface SeedTicketType {
  name: string;
  priceCents: number;
  feeCents: number;
  pools: string[];
  min?: number;
  max?: number;
  hidden?: boolean;
  seated?: boolean;
  saleStartsInDays?: number;
  saleEndedDaysAgo?: number;
  description?: string;
}

interface SeedEvent {
  slug: string;
  title: string;
  summary: string;
  status: 'draft' | 'pending_review' | 'published' | 'cancelled';
  startsInDays: number;
  durationHours?: number;
  venue: string;
  doors: string;
  categories: string[];
  onSaleInDays?: number;
  pools: Record<string, { capacity: number | null; sold?: number }>;
  types: SeedTicketType[];
}

/** Each venue with the IANA zone of its city; its events take that zone. */
const VENUES = [
  ['The Forum', 'the-forum-melbourne', '154 Flinders St', 'Melbourne', 'VIC', '3000', -37.8167, 144.9693, 'https://forummelbourne.example.com.au', '+61 3 9299 9700', 'Australia/Melbourne'],
  ['Enmore Theatre', 'enmore-theatre-sydney', '118-132 Enmore Rd', 'Newtown', 'NSW', '2042', -33.8996, 151.1739, 'https://enmoretheatre.example.com.au', '+61 2 9550 3666', 'Australia/Sydney'],
  ['The Tivoli', 'the-tivoli-brisbane', '52 Costin St', 'Fortitude Valley', 'QLD', '4006', -27.4545, 153.0352, null, null, 'Australia/Brisbane'],
  ['Thebarton Theatre', 'thebarton-theatre-adelaide', '112 Henley Beach Rd', 'Torrensville', 'SA', '5031', -34.9197, 138.5627, null, '+61 8 8443 5255', 'Australia/Adelaide'],
  ['Astor Theatre', 'astor-theatre-perth', '659 Beaufort St', 'Mount Lawley', 'WA', '6050', -31.9316, 115.8729, null, null, 'Australia/Perth'],
] as const;

/** The zone every demo event carried before each took its venue's; such events are corrected when the demo is seeded again. */
const FORMER_DEMO_ZONE = 'Australia/Melbourne';

interface SeededVenue {
  id: string;
  timezone: string;
}

function demoEvents(prefix: string): SeedEvent[] {
  const ga = (capacity: number | null, sold = 0) => ({ capacity, sold });
  return [
    { slug: `${prefix}midnight-oil-reunion`, title: 'Midnight Oil', summary: 'The reunion tour, one night only', status: 'published', startsInDays: 30, venue: 'the-forum-melbourne', doors: '7:00pm', categories: ['music', 'rock'], pools: { 'General Admission': ga(1500, 320) }, types: [{ name: 'General Admission', priceCents: 8950, feeCents: 450, pools: ['General Admission'], max: 8 }, { name: 'VIP Early Entry', priceCents: 14950, feeCents: 650, pools: ['General Admission'], max: 4, description: 'Early entry and a tour poster' }] },
    { slug: `${prefix}courtney-barnett`, title: 'Courtney Barnett', summary: 'Songs from the new record', status: 'published', startsInDays: 45, venue: 'enmore-theatre-sydney', doors: '7:30pm', categories: ['music', 'indie'], pools: { Stalls: ga(900, 120), Balcony: ga(700, 50) }, types: [{ name: 'Stalls Standing', priceCents: 7900, feeCents: 400, pools: ['Stalls'] }, { name: 'Balcony Seated', priceCents: 9900, feeCents: 500, pools: ['Balcony'], seated: true }, { name: 'Flexi Ticket', priceCents: 8900, feeCents: 450, pools: ['Stalls', 'Balcony'], description: 'Stalls or balcony, your choice at purchase' }] },
    { slug: `${prefix}hilltop-hoods`, title: 'Hilltop Hoods', summary: 'Sold out at the Tivoli', status: 'published', startsInDays: 12, venue: 'the-tivoli-brisbane', doors: '8:00pm', categories: ['music', 'hip-hop'], pools: { 'General Admission': ga(1500, 1500) }, types: [{ name: 'General Admission', priceCents: 9500, feeCents: 500, pools: ['General Admission'] }] },
    { slug: `${prefix}comedy-gala`, title: 'Comedy Festival Gala', summary: 'Ten comics, one stage', status: 'published', startsInDays: 60, venue: 'thebarton-theatre-adelaide', doors: '6:30pm', categories: ['comedy'], onSaleInDays: 7, pools: { Reserved: ga(1800) }, types: [{ name: 'A Reserve', priceCents: 11900, feeCents: 600, pools: ['Reserved'], seated: true }] },
    { slug: `${prefix}jazz-in-the-park`, title: 'Jazz in the Park', summary: 'Free community afternoon, donations welcome', status: 'published', startsInDays: 20, venue: 'astor-theatre-perth', doors: '1:00pm', categories: ['music', 'jazz', 'free'], pools: { Lawn: ga(null) }, types: [{ name: 'Lawn Pass', priceCents: 0, feeCents: 0, pools: ['Lawn'], max: 6 }] },
    { slug: `${prefix}sunset-sessions`, title: 'Sunset Sessions', summary: 'Every ticket type in one event', status: 'published', startsInDays: 25, venue: 'the-forum-melbourne', doors: '5:00pm', categories: ['music', 'electronic'], pools: { Main: ga(400, 10), Mezzanine: ga(10, 10), Guest: ga(50) }, types: [{ name: 'Early Bird', priceCents: 4900, feeCents: 300, pools: ['Main'], saleEndedDaysAgo: 2 }, { name: 'General Release', priceCents: 5900, feeCents: 300, pools: ['Main'], min: 1, max: 10 }, { name: 'Group of Four', priceCents: 21000, feeCents: 1000, pools: ['Main'], min: 4, max: 8 }, { name: 'Final Release', priceCents: 6900, feeCents: 350, pools: ['Main'], saleStartsInDays: 10 }, { name: 'Mezzanine', priceCents: 7900, feeCents: 400, pools: ['Mezzanine'] }, { name: 'Artist Guest List', priceCents: 0, feeCents: 0, pools: ['Guest'], hidden: true }] },
    { slug: `${prefix}spring-racing-lunch`, title: 'Spring Racing Lunch', summary: 'Draft: menu to be confirmed', status: 'draft', startsInDays: 50, venue: 'the-forum-melbourne', doors: '11:30am', categories: ['food'], pools: { Tables: ga(200) }, types: [{ name: 'Table Seat', priceCents: 19500, feeCents: 900, pools: ['Tables'] }] },
    { slug: `${prefix}festival-of-lights`, title: 'Festival of Lights', summary: 'Awaiting platform review', status: 'pending_review', startsInDays: 90, venue: 'enmore-theatre-sydney', doors: '6:00pm', categories: ['festival'], pools: { 'General Admission': ga(2000) }, types: [{ name: 'General Admission', priceCents: 3500, feeCents: 200, pools: ['General Admission'] }] },
    { slug: `${prefix}the-cat-empire-cancelled`, title: 'The Cat Empire', summary: 'Cancelled: refunds issued', status: 'cancelled', startsInDays: 15, venue: 'the-tivoli-brisbane', doors: '7:30pm', categories: ['music'], pools: { 'General Admission': ga(1500, 0) }, types: [{ name: 'General Admission', priceCents: 8500, feeCents: 450, pools: ['General Admission'] }] },
    { slug: `${prefix}winter-blues-2026`, title: 'Winter Blues Night', summary: 'Last season at the Astor', status: 'published', startsInDays: -40, venue: 'astor-theatre-perth', doors: '7:00pm', categories: ['music', 'blues'], pools: { 'General Admission': ga(600, 540) }, types: [{ name: 'General Admission', priceCents: 6500, feeCents: 350, pools: ['General Admission'] }] },
    { slug: `${prefix}writers-week-opening`, title: "Writers' Week Opening Night", summary: 'Readings and conversation', status: 'published', startsInDays: 8, venue: 'thebarton-theatre-adelaide', doors: '6:00pm', categories: ['literature', 'talks'], pools: { Seats: ga(500, 480) }, types: [{ name: 'Adult', priceCents: 4500, feeCents: 250, pools: ['Seats'] }, { name: 'Concession', priceCents: 3500, feeCents: 250, pools: ['Seats'] }] },
    { slug: `${prefix}kids-science-show`, title: 'Kids Science Show', summary: 'Explosions, safely', status: 'published', startsInDays: 3, durationHours: 2, venue: 'the-tivoli-brisbane', doors: '10:00am', categories: ['family'], pools: { 'General Admission': ga(300, 12) }, types: [{ name: 'Child', priceCents: 2000, feeCents: 150, pools: ['General Admission'], max: 6 }, { name: 'Adult', priceCents: 2500, feeCents: 150, pools: ['General Admission'], max: 6 }] },
  ];
}

async function upsertVenues(client: PoolClient): Promise<Map<string, SeededVenue>> {
  const venues = new Map<string, SeededVenue>();
  for (const [name, slug, line1, locality, state, postcode, lat, lng, url, phone, timezone] of VENUES) {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO venues (name, slug, line1, locality, state, postal_code, country, lat, lng, url, phone)
       VALUES ($1, $2, $3, $4, $5, $6, 'AU', $7, $8, $9, $10)
       ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug
       RETURNING id`,
      [name, slug, line1, locality, state, postcode, lat, lng, url, phone],
    );
    venues.set(slug, { id: rows[0]!.id, timezone });
  }
  return venues;
}

async function insertEvent(client: PoolClient, organisationId: number, venue: SeededVenue, seed: SeedEvent, now: number) {
  const startsAt = new Date(now + seed.startsInDays * DAY);
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO events (organisation_id, slug, title, summary, description, status, starts_at, ends_at,
                         timezone, doors, image_url, on_sale_at, venue_id, categories, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $15, $9, $10, $11, $12, $13, $14, $14)
     ON CONFLICT (slug) DO NOTHING RETURNING id`,
    [
      organisationId, seed.slug, seed.title, seed.summary, `${seed.title}: ${seed.summary}.`, seed.status,
      startsAt, new Date(startsAt.getTime() + (seed.durationHours ?? 4) * HOUR), seed.doors,
      `https://images.example.com/events/${seed.slug}.jpg`,
      seed.onSaleInDays === undefined ? null : new Date(now + seed.onSaleInDays * DAY),
      venue.id, seed.categories, new Date(now - 30 * DAY), venue.timezone,
    ],
  );
  const eventId = rows[0]?.id;
  if (!eventId) {
    // Already seeded; one seeded with the former zone takes its venue's.
    await client.query('UPDATE events SET timezone = $3, updated_at = now() WHERE slug = $1 AND organisation_id = $2 AND timezone = $4 AND timezone <> $3', [
      seed.slug, organisationId, venue.timezone, FORMER_DEMO_ZONE,
    ]);
    return;
  }
  const poolIds = new Map<string, string>();
  for (const [name, pool] of Object.entries(seed.pools)) {
    const inserted = await client.query<{ id: string }>(
      'INSERT INTO pools (event_id, name, capacity, sold) VALUES ($1, $2, $3, $4) RETURNING id',
      [eventId, name, pool.capacity, pool.sold ?? 0],
    );
    poolIds.set(name, inserted.rows[0]!.id);
  }
  for (const [order, type] of seed.types.entries()) {
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO ticket_types (event_id, name, description, price_cents, booking_fee_cents, min_per_order,
                                 max_per_order, sale_starts_at, sale_ends_at, hidden, seated, sort_order)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
      [
        eventId, type.name, type.description ?? null, type.priceCents, type.feeCents, type.min ?? 1, type.max ?? 10,
        type.saleStartsInDays === undefined ? null : new Date(now + type.saleStartsInDays * DAY),
        type.saleEndedDaysAgo === undefined ? null : new Date(now - type.saleEndedDaysAgo * DAY),
        type.hidden ?? false, type.seated ?? false, order,
      ],
    );
    for (const [position, poolName] of type.pools.entries()) {
      await client.query('INSERT INTO ticket_type_pools (ticket_type_id, pool_id, position) VALUES ($1, $2, $3)', [
        inserted.rows[0]!.id, poolIds.get(poolName), position,
      ]);
    }
  }
}

/** Seeds the demo catalog for an organisation; `slugPrefix` keeps two organisations' slugs apart. */
export async function seedDemoCatalog(pool: Pool, organisationId: number, slugPrefix = ''): Promise<void> {
  const now = Date.now();
  await inTransaction(pool, async (client) => {
    const venues = await upsertVenues(client);
    for (const seed of demoEvents(slugPrefix)) {
      await insertEvent(client, organisationId, venues.get(seed.venue)!, seed, now);
    }
  });
}
