/**
 * The demo catalog against PostgreSQL: every seeded event carries the time
 * zone of its venue's city (the Tivoli's events are Brisbane's, not
 * Melbourne's), and a demo seeded before with the former zone is corrected
 * when it is seeded again.
 */
import { createPool, randomBase62 } from '@partner-api/shared';
import { seedDemoCatalog } from '../src/storage/demo-seed';

/** The zone of each Australian state's capital, where the demo's venues are; written out here, apart from the seed. */
const STATE_ZONES: Record<string, string> = {
  VIC: 'Australia/Melbourne',
  NSW: 'Australia/Sydney',
  QLD: 'Australia/Brisbane',
  SA: 'Australia/Adelaide',
  WA: 'Australia/Perth',
};

const pool = createPool({ url: process.env.DATABASE_URL!, schema: 'inventory', max: 2, applicationName: 'demo-seed-it' });
const organisationId = 880_000 + Math.floor(Math.random() * 9_999);
const prefix = `it-seed-${randomBase62(6).toLowerCase()}-`;

afterAll(async () => {
  await pool.end();
});

interface SeededEvent {
  slug: string;
  timezone: string;
  venue: string;
  state: string;
}

async function seededEvents(): Promise<SeededEvent[]> {
  const { rows } = await pool.query<SeededEvent>(
    `SELECT e.slug, e.timezone, v.slug AS venue, v.state FROM events e JOIN venues v ON v.id = e.venue_id
     WHERE e.organisation_id = $1 AND e.slug LIKE $2 ORDER BY e.slug`,
    [organisationId, `${prefix}%`],
  );
  return rows;
}

it("gives every demo event its venue's city zone, and corrects one seeded with the former zone", async () => {
  await seedDemoCatalog(pool, organisationId, prefix);
  const events = await seededEvents();
  expect(events.length).toBeGreaterThanOrEqual(10);
  for (const event of events) expect({ slug: event.slug, timezone: event.timezone }).toEqual({ slug: event.slug, timezone: STATE_ZONES[event.state] });
  expect(events.find((event) => event.slug === `${prefix}hilltop-hoods`)).toMatchObject({ venue: 'the-tivoli-brisbane', timezone: 'Australia/Brisbane' });
  expect(new Set(events.map((event) => event.timezone)).size).toBe(5);

  // A demo seeded before the fix: its Brisbane events carried Melbourne's zone.
  await pool.query("UPDATE events SET timezone = 'Australia/Melbourne' WHERE organisation_id = $1 AND slug LIKE $2", [organisationId, `${prefix}%`]);
  await seedDemoCatalog(pool, organisationId, prefix);
  expect(await seededEvents()).toEqual(events);
}, 30_000);
