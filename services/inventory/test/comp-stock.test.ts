/**
 * Comp stock through a real inventory service (gRPC, PostgreSQL, Redis):
 * TakeCompStock takes tickets for good like a sold hold (`pools.sold`
 * first, then Redis), ReturnStock gives a take back, and counters rebuilt
 * after a Redis loss stay exact across both (D56, D60).
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, gen, randomBase62, type RequestContext, type ServiceRuntime, redisFromEnv, type RedisClient, keysEverywhere } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { soldTickets } from '../src/storage/catalog-repository';

const ctx: RequestContext = { organisationId: 545454, mode: 'live', keyId: 1, requestId: 'it' };
const testCtx: RequestContext = { ...ctx, mode: 'test' };
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;
let redis: RedisClient;

beforeAll(async () => {
  inventory = await startInventory(loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0' }), createLogger('it', 'silent'));
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
  redis = redisFromEnv();
}, 60_000);

afterAll(async () => {
  client.close();
  await inventory.stop();
  await db.end();
  await redis.quit();
});

/** An event (a draft unless `publish`) with one pool of `capacity` (null: uncapped) and a GA type on it. */
async function stage(capacity: number | null, publish = true) {
  const slug = `comp-${randomBase62(8).toLowerCase()}`;
  const event = await client.upsertEvent({ fields: { slug, title: 'Comp Test', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: capacity === null ? { name: 'GA', uncapped: true } : { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '59.50', poolIds: [pool.id] } }, ctx);
  if (publish) await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id, poolId: pool.id, typeId: type.id };
}

const available = async (slug: string) => (await client.listTicketTypes({ eventIdOrSlug: slug }, ctx)).data[0]!.available;
const sold = async (poolId: bigint) =>
  (await db.query<{ sold: number }>(`SELECT ${soldTickets('p')} AS sold FROM pools p WHERE p.id = $1`, [poolId.toString()])).rows[0]!.sold;
const takeState = async (batchId: string) => (await db.query<{ state: string }>('SELECT state FROM holds WHERE id = $1', [`comp:${batchId}`])).rows[0]?.state;

const take = (slug: string, typeId: bigint, quantity: number, options: { batchId?: string; as?: RequestContext } = {}) =>
  client.takeCompStock({ batchId: options.batchId ?? randomBase62(16), eventIdOrSlug: slug, ticketTypeId: typeId, quantity }, options.as ?? ctx);

describe('taking comp stock', () => {
  it('takes for good: sold grows, available drops, the take is a committed hold; the event is described for the emails', async () => {
    const { slug, eventId, poolId, typeId } = await stage(10);
    const batchId = randomBase62(16);
    const taken = await take(slug, typeId, 4, { batchId });
    expect(taken).toMatchObject({ eventId, poolId, ticketTypeName: 'GA', granted: 4, eventTitle: 'Comp Test' });
    expect(taken.eventStartsAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await sold(poolId)).toBe(4);
    expect(Number(await available(slug))).toBe(6);
    expect(await takeState(batchId)).toBe('committed');
  });

  it('is idempotent on the batch id', async () => {
    const { slug, poolId, typeId } = await stage(10);
    const batchId = randomBase62(16);
    await take(slug, typeId, 4, { batchId });
    expect((await take(slug, typeId, 4, { batchId })).granted).toBe(4);
    expect(await sold(poolId)).toBe(4);
    expect(Number(await available(slug))).toBe(6);
  });

  it('grants what is left when the batch is larger, and refuses with exceeds_availability when nothing is', async () => {
    const { slug, poolId, typeId } = await stage(5);
    expect((await take(slug, typeId, 8)).granted).toBe(5);
    expect(await sold(poolId)).toBe(5);
    await expect(take(slug, typeId, 1)).rejects.toMatchObject({ code: 'exceeds_availability', param: 'attendees' });
    expect(await sold(poolId)).toBe(5);
  });

  it('counts a dry run (test keys) without taking anything', async () => {
    const { slug, poolId, typeId } = await stage(3);
    expect((await take(slug, typeId, 5, { as: testCtx })).granted).toBe(3);
    expect(await sold(poolId)).toBe(0);
    expect(Number(await available(slug))).toBe(3);
  });

  it('takes from an uncapped pool without a counter, and from a draft event', async () => {
    const { slug, poolId, typeId } = await stage(null, false);
    expect((await take(slug, typeId, 50)).granted).toBe(50);
    expect(await available(slug)).toBeUndefined();
    expect(await sold(poolId)).toBe(0);
  });

  it("refuses another organisation's event and a batch id already used elsewhere", async () => {
    const { slug, typeId } = await stage(5);
    await expect(take(slug, typeId, 1, { as: { ...ctx, organisationId: 999_998 } })).rejects.toMatchObject({ code: 'resource_missing', param: 'event_id' });
    const batchId = randomBase62(16);
    await take(slug, typeId, 1, { batchId });
    const other = await stage(5);
    await expect(take(other.slug, other.typeId, 1, { batchId })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'batch_id' });
  });

  it('announces the low-stock and sold-out crossings it causes, once each', async () => {
    const { slug, eventId, typeId } = await stage(20);
    await take(slug, typeId, 10);
    await take(slug, typeId, 12);
    const { rows } = await db.query<{ event_type: string }>(
      "SELECT event_type FROM outbox WHERE partition_key = $1 AND event_type IN ('ticket_type.low_inventory', 'event.sold_out') ORDER BY id",
      [`event:${eventId}`],
    );
    expect(rows.map((row) => row.event_type)).toEqual(['ticket_type.low_inventory', 'event.sold_out']);
  });
});

describe('returning comp stock', () => {
  it('gives a take back once: sold and available as before, the hold released', async () => {
    const { slug, poolId, typeId } = await stage(10);
    const batchId = randomBase62(16);
    await take(slug, typeId, 4, { batchId });
    expect((await client.returnStock({ batchId }, ctx)).returned).toBe(true);
    expect((await client.returnStock({ batchId }, ctx)).returned).toBe(false);
    expect(await sold(poolId)).toBe(0);
    expect(Number(await available(slug))).toBe(10);
    expect(await takeState(batchId)).toBe('released');
  });

  it("returns nothing for a batch never taken, or another organisation's", async () => {
    const { slug, typeId } = await stage(10);
    expect((await client.returnStock({ batchId: randomBase62(16) }, ctx)).returned).toBe(false);
    const batchId = randomBase62(16);
    await take(slug, typeId, 2, { batchId });
    expect((await client.returnStock({ batchId }, { ...ctx, organisationId: 999_998 })).returned).toBe(false);
    expect(Number(await available(slug))).toBe(8);
  });

  it('takes a returned batch again under the same id (a retry after a failed issue)', async () => {
    const { slug, poolId, typeId } = await stage(10);
    const batchId = randomBase62(16);
    await take(slug, typeId, 3, { batchId });
    await client.returnStock({ batchId }, ctx);
    expect((await take(slug, typeId, 3, { batchId })).granted).toBe(3);
    expect(await sold(poolId)).toBe(3);
    expect(Number(await available(slug))).toBe(7);
  });
});

describe('counters rebuilt after a Redis loss', () => {
  const dropEvent = async (eventId: bigint) => {
    const keys = await keysEverywhere(redis, `{ev:${eventId}}:*`);
    if (keys.length > 0) await redis.del(...keys);
  };

  it('count comps as sold: capacity − sold − live holds', async () => {
    const { slug, eventId, typeId } = await stage(30);
    await take(slug, typeId, 5);
    await client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity: 3 }], ttlSeconds: 900 }, ctx);
    expect(Number(await available(slug))).toBe(22);
    await dropEvent(eventId);
    expect(Number(await available(slug))).toBe(22);
  });

  it('stay exact when a take is returned after the loss, before anything rebuilt the counter', async () => {
    const { slug, eventId, poolId, typeId } = await stage(30);
    const batchId = randomBase62(16);
    await take(slug, typeId, 5, { batchId });
    await dropEvent(eventId);
    expect((await client.returnStock({ batchId }, ctx)).returned).toBe(true);
    expect(await sold(poolId)).toBe(0);
    expect(Number(await available(slug))).toBe(30);
  });

  it('stay exact when a take is returned after the counter was rebuilt', async () => {
    const { slug, eventId, typeId } = await stage(30);
    const batchId = randomBase62(16);
    await take(slug, typeId, 5, { batchId });
    await dropEvent(eventId);
    expect(Number(await available(slug))).toBe(25);
    await client.returnStock({ batchId }, ctx);
    expect(Number(await available(slug))).toBe(30);
    await dropEvent(eventId);
    expect(Number(await available(slug))).toBe(30);
  });
});
