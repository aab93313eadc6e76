/**
 * `partnerctl seating-plan bind` against the running stack: a seated pool
 * bound to the balcony of the demo theatre sells its 400 seats (capacity
 * and availability say so); an unknown section is refused in one line with
 * exit code 1 and nothing changed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { expectRefused, jsonLines, partnerctl, type CliRun } from './support/partnerctl';

// Each partnerctl run starts a Node process: a few seconds each on a loaded 2-core machine.
jest.setTimeout(120_000);

let dir: string;
let inventory: InventoryClient;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seating-bind-'));
  inventory = inventoryClient();
});
afterAll(async () => {
  inventory.close();
  await rm(dir, { recursive: true, force: true });
});

function succeeded(run: CliRun): string {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return run.stdout;
}

it('binds a pool to the demo theatre balcony: its capacity is the 400 balcony seats', async () => {
  const org = await newOrganisation();
  const ctx = operatorContext(org.id);
  const venue = await inventory.upsertVenue(
    { fields: { name: 'Bind Theatre', slug: uniqueSlug('bind-theatre'), line1: '3 Stage Rd', locality: 'Sydney', state: 'NSW', postalCode: '2000', country: 'AU' } },
    ctx,
  );
  const theatre = path.join(dir, 'theatre.json');
  await writeFile(theatre, succeeded(await partnerctl('seating-plan', 'demo', 'theatre')));
  succeeded(await partnerctl('seating-plan', 'import', theatre, '--venue', venue.id.toString()));
  const slug = uniqueSlug('bind-event');
  await inventory.upsertEvent({ fields: { slug, title: 'Seated Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney', venueId: venue.id } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Balcony', capacity: 10n } }, ctx);
  await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Balcony Seated', price: '80.00', seated: true, poolIds: [pool.id] } }, ctx);

  const counts = async () => {
    const type = (await inventory.listTicketTypes({ eventIdOrSlug: slug }, ctx)).data[0]!;
    return { capacity: Number(type.capacity), available: Number(type.available) };
  };
  expectRefused(await partnerctl('seating-plan', 'bind', '--pool', pool.id.toString(), '--sections', 'gallery'), /The plan has no section gallery\./);
  expect(await counts()).toEqual({ capacity: 10, available: 10 });

  const bound = await partnerctl('seating-plan', 'bind', '--pool', pool.id.toString(), '--sections', 'balcony');
  succeeded(bound);
  expect(jsonLines<Record<string, unknown>>(bound)).toEqual([{ object: 'pool_seating', pool_id: Number(pool.id), venue_id: Number(venue.id), version: 1, sections: ['balcony'], seat_count: 400 }]);
  expect(await counts()).toEqual({ capacity: 400, available: 400 });
});
