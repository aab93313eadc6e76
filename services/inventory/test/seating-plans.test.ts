/**
 * Seating plans through a real inventory service (gRPC, PostgreSQL): an
 * import stores the checked document as the venue's next version, the same
 * document again adds nothing, every version reads back as stored, and a
 * bad document is refused naming the field's path with nothing written.
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, demoArenaPlan, demoTheatrePlan, gen, operatorContext, randomBase62, readSeatingPlanJson, type SeatingPlanInput, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';

jest.setTimeout(30_000);

const ctx = operatorContext();
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;

beforeAll(async () => {
  inventory = await startInventory(loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0' }), createLogger('it', 'silent'));
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
}, 60_000);

afterAll(async () => {
  client.close();
  await inventory.stop();
  await db.end();
});

async function newVenue(): Promise<bigint> {
  const slug = `plan-hall-${randomBase62(8).toLowerCase()}`;
  const venue = await client.upsertVenue({ fields: { name: 'Plan Hall', slug, line1: '1 Row St', locality: 'Sydney', state: 'NSW', postalCode: '2000', country: 'AU' } }, ctx);
  return venue.id;
}

const versionsOf = async (venueId: bigint) =>
  (await db.query<{ version: number }>('SELECT version FROM seating_plans WHERE venue_id = $1 ORDER BY version', [venueId.toString()])).rows.map((row) => row.version);

/** A refusal's code, field and message (an error's message is not one of its enumerable fields). */
async function refusal(call: Promise<unknown>): Promise<{ code: string; param: string | null; message: string }> {
  const error = (await call.then(() => new Error('expected a refusal'), (refused: unknown) => refused)) as { code: string; param: string | null; message: string };
  return { code: error.code, param: error.param, message: error.message };
}

const small = (name = 'Small Hall'): SeatingPlanInput => ({
  format: 1,
  name,
  width: 100,
  height: 100,
  sections: [{ id: 'stalls', name: 'Stalls', rows: [{ id: 'A', label: 'A', seats: [{ id: 'A1', label: '1', x: 10, y: 10, rank: 1 }, { id: 'A2', label: '2', x: 20, y: 10, rank: 2 }] }] }],
});

describe('seating plans', () => {
  it('stores an import as version 1 and reads it back as stored, defaults filled in', async () => {
    const venueId = await newVenue();
    const imported = await client.importSeatingPlan({ venueId, documentJson: JSON.stringify(demoTheatrePlan()) }, ctx);
    expect(imported.created).toBe(true);
    expect(imported.plan).toMatchObject({ object: 'seating_plan', venueId, version: 1, seatCount: 1200 });

    const read = await client.getSeatingPlan({ venueId }, ctx);
    expect(read).toMatchObject({ venueId, version: 1, seatCount: 1200, createdAt: imported.plan!.createdAt });
    const stored = readSeatingPlanJson(read.documentJson);
    expect(stored.ok && stored.plan.sections[0]!.rows[0]!.seats[0]).toEqual(expect.objectContaining({ id: 'stalls-A-1', gap_before: false }));
    // The stored text is the canonical document: importing it again is the same plan.
    expect(JSON.stringify(JSON.parse(read.documentJson))).toBe(read.documentJson);
  });

  it('adds a version per changed document, none for the latest one again, and keeps every version', async () => {
    const venueId = await newVenue();
    const first = await client.importSeatingPlan({ venueId, documentJson: JSON.stringify(small()) }, ctx);
    // The same plan, spaced differently and with its defaults spelled out: not a new version.
    const spelledOut = { ...small(), categories: [] };
    const again = await client.importSeatingPlan({ venueId, documentJson: JSON.stringify(spelledOut, null, 2) }, ctx);
    expect({ created: again.created, version: again.plan!.version }).toEqual({ created: false, version: 1 });

    const second = await client.importSeatingPlan({ venueId, documentJson: JSON.stringify(small('Renamed Hall')) }, ctx);
    expect({ created: second.created, version: second.plan!.version }).toEqual({ created: true, version: 2 });
    expect(await versionsOf(venueId)).toEqual([1, 2]);

    expect((await client.getSeatingPlan({ venueId }, ctx)).version).toBe(2);
    expect(await client.getSeatingPlan({ venueId, version: 1 }, ctx)).toEqual(first.plan);
    await expect(client.getSeatingPlan({ venueId, version: 3 }, ctx)).rejects.toMatchObject({ code: 'resource_missing', param: 'version' });
    await expect(client.getSeatingPlan({ venueId, version: 0 }, ctx)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'version' });
  });

  it('numbers concurrent imports of one venue one after another', async () => {
    const venueId = await newVenue();
    const imports = await Promise.all(Array.from({ length: 6 }, (_, i) => client.importSeatingPlan({ venueId, documentJson: JSON.stringify(small(`Hall ${i}`)) }, ctx)));
    expect(imports.map((answer) => answer.plan!.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await versionsOf(venueId)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('takes the 10,000-seat arena in one message', async () => {
    const venueId = await newVenue();
    const imported = await client.importSeatingPlan({ venueId, documentJson: JSON.stringify(demoArenaPlan()) }, ctx);
    expect(imported.plan).toMatchObject({ version: 1, seatCount: 10_000 });
    expect(readSeatingPlanJson((await client.getSeatingPlan({ venueId }, ctx)).documentJson).ok).toBe(true);
  });

  it('refuses a bad document naming the path of each bad field, and writes nothing', async () => {
    const venueId = await newVenue();
    const document = small();
    document.sections[0]!.rows[0]!.seats[1]!.x = -5;
    document.sections[0]!.rows[0]!.seats[1]!.id = 'A1';
    // Every problem in one answer, each with its path; the first is the error's param.
    expect(await refusal(client.importSeatingPlan({ venueId, documentJson: JSON.stringify(document) }, ctx))).toEqual({
      code: 'parameter_invalid',
      param: 'sections[0].rows[0].seats[1].x',
      message: 'The seating plan is invalid: sections[0].rows[0].seats[1].x: must not be negative; sections[0].rows[0].seats[1].id: duplicate seat id "A1"',
    });
    document.sections[0]!.rows[0]!.seats[1]!.x = 20;
    document.sections[0]!.rows[0]!.seats[0]!.category = 'vip';
    expect(await refusal(client.importSeatingPlan({ venueId, documentJson: JSON.stringify(document) }, ctx))).toEqual({
      code: 'parameter_invalid',
      param: 'sections[0].rows[0].seats[0].category',
      message: 'The seating plan is invalid: sections[0].rows[0].seats[0].category: unknown category "vip" (not in categories); sections[0].rows[0].seats[1].id: duplicate seat id "A1"',
    });
    expect(await refusal(client.importSeatingPlan({ venueId, documentJson: '{"format": 1' }, ctx))).toEqual({ code: 'parameter_invalid', param: '(document)', message: expect.stringMatching(/^The seating plan is invalid: \(document\): not JSON/) });
    expect(await versionsOf(venueId)).toEqual([]);
    expect(await refusal(client.getSeatingPlan({ venueId }, ctx))).toEqual({ code: 'resource_missing', param: 'venue_id', message: 'The venue has no seating plan.' });
  });

  it('refuses a venue that does not exist or was removed', async () => {
    const missing = { venueId: 9_000_000_000n, documentJson: JSON.stringify(small()) };
    expect(await refusal(client.importSeatingPlan(missing, ctx))).toEqual({ code: 'resource_missing', param: 'venue_id', message: 'No such venue.' });
    expect(await refusal(client.getSeatingPlan({ venueId: missing.venueId }, ctx))).toEqual({ code: 'resource_missing', param: 'venue_id', message: 'No such venue.' });
    await expect(client.importSeatingPlan({ ...missing, venueId: 0n }, ctx)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'venue_id' });
    const removed = await newVenue();
    await client.upsertVenue({ id: removed, fields: { removed: true } }, ctx);
    await expect(client.importSeatingPlan({ venueId: removed, documentJson: JSON.stringify(small()) }, ctx)).rejects.toMatchObject({ code: 'resource_missing', param: 'venue_id' });
  });
});
