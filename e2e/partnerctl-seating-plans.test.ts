/**
 * `partnerctl seating-plan` against the running stack: a demo plan printed,
 * imported for a venue and exported again is the same document; an
 * import of the exported file adds no version, a changed one adds the
 * next, and `--version` exports an older one. Bad input gets one clear
 * line on stderr naming the bad field's path, exit code 1 and no write.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { expectRefused, jsonLines, partnerctl, type CliRun } from './support/partnerctl';

// Each partnerctl run starts a Node process: a few seconds each on a loaded 2-core machine.
jest.setTimeout(120_000);

interface Imported {
  object: string;
  venue_id: number;
  version: number;
  seat_count: number;
  created: boolean;
}

let dir: string;
let venueId: string;

function succeeded(run: CliRun): string {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return run.stdout;
}

const imported = (run: CliRun): Imported => {
  succeeded(run);
  return jsonLines<Imported>(run)[0]!;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seating-plans-'));
  const org = await newOrganisation();
  const inventory = inventoryClient();
  try {
    const venue = await inventory.upsertVenue(
      { fields: { name: 'Plan Theatre', slug: uniqueSlug('plan-theatre'), line1: '2 Stage Rd', locality: 'Sydney', state: 'NSW', postalCode: '2000', country: 'AU' } },
      operatorContext(org.id),
    );
    venueId = venue.id.toString();
  } finally {
    inventory.close();
  }
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('partnerctl seating-plan', () => {
  it('imports a demo plan, exports it as imported, and versions changed documents', async () => {
    const theatre = path.join(dir, 'theatre.json');
    await writeFile(theatre, succeeded(await partnerctl('seating-plan', 'demo', 'theatre')));

    expect(imported(await partnerctl('seating-plan', 'import', theatre, '--venue', venueId))).toMatchObject({
      object: 'seating_plan',
      venue_id: Number(venueId),
      version: 1,
      seat_count: 1200,
      created: true,
    });
    const exported = succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId));
    expect(JSON.parse(exported)).toEqual(JSON.parse(await readFile(theatre, 'utf8')));

    // The exported file imported again is the latest version, not a new one.
    const roundTrip = path.join(dir, 'round-trip.json');
    succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId, '--output', roundTrip));
    expect(imported(await partnerctl('seating-plan', 'import', roundTrip, '--venue', venueId))).toMatchObject({ version: 1, created: false });

    const renamed = path.join(dir, 'renamed.json');
    await writeFile(renamed, JSON.stringify({ ...JSON.parse(exported), name: 'Plan Theatre, refurbished' }));
    expect(imported(await partnerctl('seating-plan', 'import', renamed, '--venue', venueId))).toMatchObject({ version: 2, seat_count: 1200, created: true });
    expect(JSON.parse(succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId))).name).toBe('Plan Theatre, refurbished');
    expect(JSON.parse(succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId, '--version', '1'))).name).toBe('Demo theatre (stalls and balcony)');
  });

  it('refuses bad input with one line naming what to fix, and writes nothing', async () => {
    const document = JSON.parse(succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId))) as { sections: { rows: { seats: { rank: number }[] }[] }[] };
    document.sections[1]!.rows[2]!.seats[3]!.rank = 0;
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify(document));
    const notJson = path.join(dir, 'not.json');
    await writeFile(notJson, '{"format": 1,');

    const [badRank, broken, missingFile, unknownVenue, noVersion, notAnId, unknownDemo, noVenue] = await Promise.all([
      partnerctl('seating-plan', 'import', bad, '--venue', venueId),
      partnerctl('seating-plan', 'import', notJson, '--venue', venueId),
      partnerctl('seating-plan', 'import', path.join(dir, 'missing.json'), '--venue', venueId),
      partnerctl('seating-plan', 'import', path.join(dir, 'theatre.json'), '--venue', '999999999'),
      partnerctl('seating-plan', 'export', '--venue', venueId, '--version', '99'),
      partnerctl('seating-plan', 'export', '--venue', 'hall'),
      partnerctl('seating-plan', 'demo', 'stadium'),
      partnerctl('seating-plan', 'import', bad),
    ]);
    expectRefused(badRank, /^error: The seating plan is invalid: sections\[1\]\.rows\[2\]\.seats\[3\]\.rank: must be at least 1\n$/);
    expectRefused(broken, /The seating plan is invalid: \(document\): not JSON/);
    expectRefused(missingFile, /cannot read .*missing\.json: ENOENT/);
    expectRefused(unknownVenue, /No such venue\./);
    expectRefused(noVersion, /The venue has no seating plan version 99\./);
    expectRefused(notAnId, /option '--venue <id>' argument 'hall' is invalid/);
    expectRefused(unknownDemo, /expected one of theatre, arena/);
    expectRefused(noVenue, /required option '--venue <id>' not specified/);

    // Still two versions, the latest unchanged.
    const latest = JSON.parse(succeeded(await partnerctl('seating-plan', 'export', '--venue', venueId))) as { name: string };
    expect(latest.name).toBe('Plan Theatre, refurbished');
    expectRefused(await partnerctl('seating-plan', 'export', '--venue', venueId, '--version', '3'), /no seating plan version 3/);
  });
});
