/**
 * Redis losing its data, or coming back with an old copy of it: the stock
 * is rebuilt from PostgreSQL and never oversold, and holds that were live
 * when Redis lost them still go back to stock. A real inventory service
 * (gRPC, PostgreSQL, Redis) on a Redis database of its own, so dropping
 * and killing its connections touches nothing else on the server.
 */
import { Pool } from 'pg';
import type { Redis } from 'ioredis';
import {
  createLogger,
  createServiceClient,
  gen,
  isCluster,
  keysEverywhere,
  randomBase62,
  redisFromEnv,
  redisShards,
  shardKey,
  shardOf,
  type RedisClient,
  type RequestContext,
  type ServiceRuntime,
} from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { HoldBook } from '../src/storage/hold-book';
import { availabilityKey } from '../src/storage/stock-keys';
import { StockStore } from '../src/storage/stock-store';
import { eventually } from './support';

const DB = 11;
const ctx: RequestContext = { organisationId: 535354, mode: 'live', keyId: 1, requestId: 'it' };
// A cluster has database 0 only: the suite then owns the whole cluster (make test-redis-cluster).
const clustered = /\+cluster:/.test(process.env.REDIS_URL ?? '') || Boolean(process.env.REDIS_CLUSTER_NODES);
const redisUrl = () => {
  if (clustered) return process.env.REDIS_URL!;
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:56379');
  url.pathname = `/${DB}`;
  return url.toString();
};
/** The connection of the shard that keeps an event (the one Redis when not a cluster). */
const shardOfEvent = (eventId: string): Redis => {
  if (!isCluster(redis)) return redis;
  const key = shardOf(redis, `{ev:${eventId}}`);
  return redisShards(redis).find((shard) => shardKey(shard) === key)!;
};
/** The run key the gate keeps on that shard (a hash tag of the shard's own in a cluster). */
async function runKeyOf(shard: Redis): Promise<string> {
  if (!isCluster(redis)) return 'inventory:redis-run';
  const keys = await shard.keys('inventory:redis-run:{*');
  expect(keys).toHaveLength(1);
  return keys[0]!;
}
const flushAll = () => Promise.all(redisShards(redis).map((shard) => shard.flushdb()));
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;
let redis: RedisClient;

// Tests wait for holds to lapse and for the sweeper (each wait bounded by `eventually`, up to 10 s): more than Jest's 5 s default.
jest.setTimeout(30_000);

beforeAll(async () => {
  redis = redisFromEnv({ ...process.env, REDIS_URL: redisUrl() });
  await keysEverywhere(redis, 'nothing'); // connected, slot table known
  await flushAll();
  inventory = await startInventory(
    loadInventoryConfig({ ...process.env, REDIS_URL: redisUrl(), GRPC_PORT: '0', OPS_PORT: '0', HOLD_SWEEP_INTERVAL_MS: '200', HOLD_SETTLE_INTERVAL_MS: '500' }),
    createLogger('it', 'silent'),
  );
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
}, 60_000);

afterAll(async () => {
  client.close();
  await inventory.stop();
  await db.end();
  await flushAll();
  await redis.quit();
});

async function onSaleEvent(capacity: number) {
  const slug = `loss-${randomBase62(8).toLowerCase()}`;
  const event = await client.upsertEvent({ fields: { slug, title: 'Redis Loss', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 100, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id.toString(), poolId: pool.id.toString(), typeId: type.id };
}

const available = async (slug: string) => Number((await client.listTicketTypes({ eventIdOrSlug: slug }, ctx)).data[0]!.available);
const hold = (slug: string, typeId: bigint, quantity: number, options: { id?: string; ttl?: number } = {}) =>
  client.holdStock({ holdId: options.id ?? randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity }], ttlSeconds: options.ttl ?? 900 }, ctx);
const holdState = async (id: string) => (await db.query<{ state: string }>('SELECT state FROM holds WHERE id = $1', [id])).rows[0]?.state;


describe('Redis losing its data', () => {
  it('returns holds that were live at the loss to stock when they expire or are released', async () => {
    const { slug, eventId, typeId } = await onSaleEvent(10);
    const lapsing = randomBase62(16);
    const kept = randomBase62(16);
    await hold(slug, typeId, 4, { id: lapsing, ttl: 2 });
    await hold(slug, typeId, 3, { id: kept });
    // Redis forgets everything about the event, holds included.
    await redis.del(...(await keysEverywhere(redis, `{ev:${eventId}}:*`)));
    expect(await available(slug)).toBe(3);
    await eventually('the lapsed hold to be released', () => holdState(lapsing), (state) => state === 'released');
    expect(await eventually('its tickets to come back', () => available(slug), (left) => left === 7)).toBe(7);
    expect(await client.releaseHold({ holdId: kept }, ctx)).toMatchObject({ released: true });
    expect(await available(slug)).toBe(10);
    // Released once only.
    expect(await client.releaseHold({ holdId: kept }, ctx)).toMatchObject({ released: false });
    expect(await available(slug)).toBe(10);
  });

  it('takes a hold whose record the rebuild already wrote back once, not twice', async () => {
    const { slug, eventId, poolId, typeId } = await onSaleEvent(10);
    const first = randomBase62(16);
    await hold(slug, typeId, 2, { id: first });
    await redis.del(...(await keysEverywhere(redis, `{ev:${eventId}}:*`)));
    // A hold recorded in PostgreSQL whose take in Redis is still to come, when the counter is rebuilt.
    const inFlight = randomBase62(16);
    await db.query(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at)
       SELECT $1, $2, p.event_id, jsonb_build_array(jsonb_build_object('pool_id', p.id::text, 'quantity', 3)), 'held', now() + interval '15 minutes'
         FROM pools p WHERE p.event_id = $3`,
      [inFlight, ctx.organisationId, eventId],
    );
    expect(await available(slug)).toBe(5);
    // Its take now finds itself already held: nothing more comes off.
    const book = new HoldBook(redis);
    expect(await book.hold(eventId, inFlight, [{ poolId, quantity: 3, threshold: 5 }], new Date(Date.now() + 900_000))).toEqual({ held: false, reason: 'already_held' });
    expect(await redis.get(availabilityKey(eventId, poolId))).toBe('5');
    expect(await client.releaseHold({ holdId: inFlight }, ctx)).toMatchObject({ released: true });
    expect(await available(slug)).toBe(8);
  });

  it('rebuilds below zero when more is recorded than the pool has, and sells only what is really left', async () => {
    const { slug, eventId, poolId, typeId } = await onSaleEvent(4);
    const sold = randomBase62(16);
    await hold(slug, typeId, 3, { id: sold });
    await redis.del(...(await keysEverywhere(redis, `{ev:${eventId}}:*`)));
    // Two holds recorded in PostgreSQL whose takes are still in flight (they will be refused): 5 rows on a pool of 4.
    const inFlight = [randomBase62(16), randomBase62(16)];
    await db.query(
      `INSERT INTO holds (id, organisation_id, event_id, pools, state, expires_at)
       SELECT batch.hold_id, $2, p.event_id, jsonb_build_array(jsonb_build_object('pool_id', p.id::text, 'quantity', 1)), 'held', now() + interval '15 minutes'
         FROM pools p, unnest($1::text[]) AS batch (hold_id) WHERE p.event_id = $3`,
      [inFlight, ctx.organisationId, eventId],
    );
    // The counter keeps the deficit; partners see none left.
    expect(await available(slug)).toBe(0);
    expect(await redis.get(availabilityKey(eventId, poolId))).toBe('-1');
    // The refused takes are released (as inventory abandons them): the one ticket really left comes back, not two.
    for (const id of inFlight) expect(await client.releaseHold({ holdId: id }, ctx)).toMatchObject({ released: true });
    expect(await available(slug)).toBe(1);
    await expect(hold(slug, typeId, 2)).rejects.toMatchObject({ code: 'exceeds_availability' });
    await hold(slug, typeId, 1);
    expect(await available(slug)).toBe(0);
    const { rows } = await db.query<{ held: number }>("SELECT coalesce(sum((line->>'quantity')::int), 0)::int AS held FROM holds, jsonb_array_elements(pools) line WHERE event_id = $1 AND state = 'held'", [eventId]);
    expect(rows[0]!.held).toBe(4);
  });

  it('settles holds released or sold between the snapshot and the rebuild', async () => {
    const eventId = `t${randomBase62(10)}`;
    const pool = { id: '1', event_id: eventId, name: 'GA', capacity: 10, sold: 0 };
    const liveHold = (id: string) => ({ id, pools: [{ poolId: '1', quantity: 2 }], expiresAt: Date.now() + 900_000 });
    // The snapshot saw three live holds; by the time the counter is written back, one was released and one sold.
    const durable = {
      stockSnapshot: async () => new Map([['1', { available: 4, holds: [liveHold('a'), liveHold('b'), liveHold('c')] }]]),
      settledHolds: async (ids: string[]) =>
        [{ id: 'a', eventId, state: 'released' as const }, { id: 'b', eventId, state: 'committed' as const }].filter((hold) => ids.includes(hold.id)),
    };
    const book = new HoldBook(redis);
    const stock = new StockStore(redis, durable, book);
    expect(await stock.availability([pool])).toEqual(new Map([['1', 6]]));
    expect(await redis.exists(`{ev:${eventId}}:hold:a`, `{ev:${eventId}}:hold:b`, `{ev:${eventId}}:hold:c`)).toBe(1);
    expect(await book.release(eventId, 'c')).toBe(true);
    expect(await stock.availability([pool])).toEqual(new Map([['1', 8]]));
  });
});

describe('Redis coming back with an old copy of its data', () => {
  it('drops every inventory key of the earlier run before selling again, and reports not ready until then', async () => {
    const { slug, eventId, poolId, typeId } = await onSaleEvent(10);
    await hold(slug, typeId, 4);
    expect(await available(slug)).toBe(6);

    // What an append-only file or a promoted replica could bring back: a counter from before the hold, and another run's marker.
    const shard = shardOfEvent(eventId);
    const runKey = await runKeyOf(shard);
    const wipeKey = runKey.replace('inventory:redis-run', 'inventory:redis-run:wipe');
    await redis.set(`{ev:${eventId}}:avail:${poolId}`, '10');
    await shard.set(runKey, 'an-earlier-run');
    // Someone else is dropping the stale keys (we hold their lock for now).
    await shard.set(wipeKey, 'another-process', 'PX', 60_000);
    // The inventory's connection drops (as in a restart) and reconnects to the "restored" data.
    const clients = (await shard.client('LIST')) as string;
    const mine = String(await shard.client('ID'));
    const theirs = clients
      .split('\n')
      .filter((line) => line.includes(` db=${clustered ? 0 : DB} `) && !line.startsWith(`id=${mine} `))
      .map((line) => /^id=(\d+)/.exec(line)![1]!);
    expect(theirs.length).toBeGreaterThan(0);
    for (const id of theirs) await shard.client('KILL', 'ID', id);

    // Until the stale keys are gone: no hold is taken on the old counter. One Redis: not ready.
    // A cluster: only this shard is closed; inventory stays ready for the events on the others.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await inventory.lifecycle.readiness()).toEqual(clustered ? { ready: true, failing: [] } : { ready: false, failing: ['redis'] });
    await expect(hold(slug, typeId, 5)).rejects.toMatchObject({ code: 'hold_failed' });
    await expect(client.listTicketTypes({ eventIdOrSlug: slug }, ctx)).rejects.toBeDefined();
    await shard.del(wipeKey);

    expect(await eventually('the inventory to verify Redis again', () => available(slug), (left) => left === 6)).toBe(6);
    expect(await inventory.lifecycle.readiness()).toEqual({ ready: true, failing: [] });
    const runId = /run_id:(\w+)/.exec(await shard.info('server'))![1];
    expect(await shard.get(runKey)).toBe(runId);
    expect(await available(slug)).toBe(6);
    await expect(hold(slug, typeId, 7)).rejects.toMatchObject({ code: 'exceeds_availability' });
    await hold(slug, typeId, 6);
    expect(await available(slug)).toBe(0);
  });
});
