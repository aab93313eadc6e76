/**
 * The checkout's in-memory catalog: a catalog write through one inventory
 * process bites on the next hold through another (the version in Redis),
 * and a snapshot is read again when its version changes, when Redis lost the
 * version, and after SNAPSHOT_TTL_MS even if nobody said so.
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, gen, randomBase62, redisFromEnv, type RedisClient, type RequestContext, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { CheckoutCatalog, SNAPSHOT_TTL_MS } from '../src/domain/checkout-catalog';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { CatalogVersions, catalogVersionKey } from '../src/storage/catalog-versions';

const ctx: RequestContext = { organisationId: 535_400 + Math.floor(Math.random() * 99), mode: 'live', keyId: 1, requestId: 'it' };
type Client = ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let first: ServiceRuntime;
let second: ServiceRuntime;
let viaFirst: Client;
let viaSecond: Client;
let db: Pool;
let redis: RedisClient;

beforeAll(async () => {
  const config = loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0' });
  [first, second] = await Promise.all([startInventory(config, createLogger('it', 'silent')), startInventory(config, createLogger('it', 'silent'))]);
  viaFirst = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${first.grpcPort}`);
  viaSecond = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${second.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
  redis = redisFromEnv();
}, 60_000);

afterAll(async () => {
  viaFirst.close();
  viaSecond.close();
  await Promise.all([first.stop(), second.stop()]);
  await db.end();
  await redis.quit();
});

async function onSaleEvent() {
  const slug = `snap-${randomBase62(8).toLowerCase()}`;
  const event = await viaFirst.upsertEvent({ fields: { slug, title: 'Snapshot', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await viaFirst.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: 100n } }, ctx);
  const type = await viaFirst.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await viaFirst.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id.toString(), typeId: type.id };
}

const hold = (client: Client, slug: string, typeId: bigint) =>
  client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity: 1 }], ttlSeconds: 60 }, ctx);

describe('across processes', () => {
  it('prices the next hold on another process at the price just written', async () => {
    const { slug, typeId } = await onSaleEvent();
    expect((await hold(viaSecond, slug, typeId)).lines[0]!.unitPrice).toBe('10.00'); // the second process now keeps a snapshot
    await viaFirst.upsertTicketType({ id: typeId, fields: { price: '12.50' } }, ctx);
    expect((await hold(viaSecond, slug, typeId)).lines[0]!.unitPrice).toBe('12.50');
  });

  it('refuses the next hold on another process once the event is cancelled', async () => {
    const { slug, typeId } = await onSaleEvent();
    await hold(viaSecond, slug, typeId);
    await viaFirst.changeEventStatus({ idOrSlug: slug, action: 'cancel' }, ctx);
    await expect(hold(viaSecond, slug, typeId)).rejects.toMatchObject({ httpStatus: 422 });
  });
});

describe('a snapshot', () => {
  let clock = 0;
  const snapshots = () => new CheckoutCatalog(new CatalogRepository(db), new CatalogVersions(redis), () => clock);
  const renameBehindItsBack = (eventId: string, title: string) => db.query('UPDATE events SET title = $2 WHERE id = $1', [eventId, title]);

  it('is used while its version holds, and read again when the version changes, is lost, or it is old', async () => {
    const { slug, eventId } = await onSaleEvent();
    const catalog = snapshots();
    clock = 1_000;
    const kept = await catalog.forCheckout(ctx.organisationId, slug);
    expect(kept?.event.title).toBe('Snapshot');

    // A write that did not announce itself is not seen while the snapshot is young...
    await renameBehindItsBack(eventId, 'Quiet rename');
    expect(await catalog.forCheckout(ctx.organisationId, slug)).toBe(kept);
    // ...and is once the snapshot is older than its TTL.
    clock += SNAPSHOT_TTL_MS;
    expect((await catalog.forCheckout(ctx.organisationId, slug))?.event.title).toBe('Quiet rename');

    // A version change is seen at once.
    await renameBehindItsBack(eventId, 'Announced rename');
    await catalog.changed(ctx.organisationId, eventId);
    expect((await catalog.forCheckout(ctx.organisationId, slug))?.event.title).toBe('Announced rename');

    // Redis forgetting the version (a restart) is a change too.
    await renameBehindItsBack(eventId, 'After a Redis loss');
    await redis.del(catalogVersionKey(eventId));
    expect((await catalog.forCheckout(ctx.organisationId, slug))?.event.title).toBe('After a Redis loss');
  });

  it('is shared by concurrent first reads, and another organisation finds nothing', async () => {
    const { slug } = await onSaleEvent();
    const catalog = snapshots();
    const reads = await Promise.all(Array.from({ length: 20 }, () => catalog.forCheckout(ctx.organisationId, slug)));
    expect(new Set(reads).size).toBe(1);
    expect(await catalog.forCheckout(ctx.organisationId + 1, slug)).toBeUndefined();
  });
});
