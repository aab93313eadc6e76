/**
 * One shard of a Redis Cluster SIGKILLed in the middle of a burst of holds
 * spread over events on every shard, then started again empty (the local
 * cluster keeps no data on disk, as a shard replaced in production would
 * come back). Only the dead shard's events stop selling, they answer
 * `hold_failed` while it is away, and once it is back they are rebuilt
 * from PostgreSQL: nothing oversold, no hold in Redis that PostgreSQL does
 * not record as held, and every counter equal to capacity minus live holds.
 *
 * Needs the 3-master cluster of `make test-redis-cluster` (which sets
 * REDIS_URL to it and REDIS_CLUSTER_INFRA to the script that kills and
 * starts its nodes); it fails, rather than skips, anywhere else.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import {
  createLogger,
  createServiceClient,
  gen,
  isCluster,
  keysEverywhere,
  randomBase62,
  redisFromEnv,
  shardOf,
  type RedisClient,
  type RequestContext,
  type ServiceRuntime,
} from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { eventually } from './support';

const CAPACITY = 60;
const EVENTS = 9; // three or so a shard: the slot of `{ev:<id>}` decides
const ATTEMPTS = 900; // 1.7× what the events hold between them
const SPREAD_MS = 3_000;
const run = promisify(execFile);
const ctx: RequestContext = { organisationId: 535_300 + Math.floor(Math.random() * 99), mode: 'live', keyId: 1, requestId: 'it' };

const infra = (...args: string[]) => {
  const script = process.env.REDIS_CLUSTER_INFRA;
  if (!script) throw new Error('REDIS_CLUSTER_INFRA is not set: run this suite with `make test-redis-cluster`');
  return run(script, args, { env: { ...process.env, REDIS_CLUSTER: '3' } });
};

let killedShard: string | undefined; // started again in afterAll if the test stops before it does
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;
let redis: RedisClient;

jest.setTimeout(120_000);

beforeAll(async () => {
  redis = redisFromEnv();
  if (!isCluster(redis)) throw new Error('REDIS_URL must name a Redis Cluster: run this suite with `make test-redis-cluster`');
  await keysEverywhere(redis, 'nothing'); // connected, slot table known
  inventory = await startInventory(
    loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0', HOLD_SWEEP_INTERVAL_MS: '200' }),
    createLogger('it', process.env.TEST_LOG_LEVEL ?? 'silent'),
  );
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
}, 60_000);

afterAll(async () => {
  if (killedShard) await infra('start', 'redis');
  client?.close();
  await inventory?.stop();
  await db?.end();
  await redis?.quit();
}, 60_000); // restarting the cluster's nodes, after a failure that left one down

interface Sale {
  slug: string;
  eventId: string;
  typeId: bigint;
  shard: string;
}

async function onSaleEvent(): Promise<Sale> {
  const slug = `shard-${randomBase62(8).toLowerCase()}`;
  const event = await client.upsertEvent({ fields: { slug, title: 'Shard Kill', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(CAPACITY) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  const eventId = event.id.toString();
  return { slug, eventId, typeId: type.id, shard: shardOf(redis, `{ev:${eventId}}`)! };
}

type Outcome = { sale: Sale; id: string; result: 'held' | string };

async function attempt(sale: Sale): Promise<Outcome> {
  const id = randomBase62(16);
  try {
    await client.holdStock({ holdId: id, eventIdOrSlug: sale.slug, lines: [{ ticketTypeId: sale.typeId, quantity: 1 }], ttlSeconds: 900 }, ctx);
    return { sale, id, result: 'held' };
  } catch (error) {
    return { sale, id, result: (error as { code?: string }).code ?? String(error) };
  }
}

const available = async (sale: Sale) => Number((await client.listTicketTypes({ eventIdOrSlug: sale.slug }, ctx)).data[0]!.available);
const liveHolds = async (sale: Sale) =>
  (await db.query<{ id: string }>("SELECT id FROM holds WHERE event_id = $1 AND state = 'held' AND expires_at > now()", [sale.eventId])).rows.map((row) => row.id);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


it('kill one shard mid-burst: only its events stop, and they come back rebuilt and never oversold', async () => {
  const sales = await Promise.all(Array.from({ length: EVENTS }, () => onSaleEvent()));
  const shards = new Set(sales.map((sale) => sale.shard));
  expect(shards.size).toBeGreaterThan(1); // nine events, three shards: chance of one shard only is 3 in 6,561
  const victim = sales[0]!.shard;
  const onVictim = sales.filter((sale) => sale.shard === victim);
  const elsewhere = sales.filter((sale) => sale.shard !== victim);

  // The burst: attempts spread over the events and over three seconds; the shard dies a quarter in.
  const burst = Promise.all(
    Array.from({ length: ATTEMPTS }, async (_, i) => {
      await sleep((i * SPREAD_MS) / ATTEMPTS);
      return attempt(sales[i % sales.length]!);
    }),
  );
  await sleep(SPREAD_MS / 4);
  killedShard = victim;
  await infra('kill', 'redis', victim.split(':')[1]!);

  // While it is away: its events answer hold_failed (a retry is safe), the others keep selling.
  await eventually('the dead shard to refuse holds', () => attempt(onVictim[0]!), (outcome) => outcome.result === 'hold_failed', 10_000);
  const survivor = await eventually('another shard to sell', () => attempt(elsewhere[0]!), (outcome) => outcome.result === 'held' || outcome.result === 'exceeds_availability', 20_000);
  expect(['held', 'exceeds_availability']).toContain(survivor.result);
  // Still ready: the other shards' events sell, and a restarted pod would not bring the shard back.
  const readinessWhileDown = await inventory.lifecycle.readiness();
  expect(readinessWhileDown).toEqual({ ready: true, failing: [] });

  await infra('start', 'redis');
  killedShard = undefined;
  const outcomes = [...(await burst), survivor];
  const tally = outcomes.reduce<Record<string, number>>((counts, { result }) => ({ ...counts, [result]: (counts[result] ?? 0) + 1 }), {});
  console.log(`shard ${victim} killed a quarter into ${ATTEMPTS} holds over ${EVENTS} events (${onVictim.length} on it): ${JSON.stringify(tally)}; readiness while down ${JSON.stringify(readinessWhileDown)}`);

  // Every answer is one the contract knows; only the dead shard's events ever failed.
  expect(Object.keys(tally).filter((result) => !['held', 'exceeds_availability', 'hold_failed'].includes(result))).toEqual([]);
  const failedElsewhere = outcomes.filter((outcome) => outcome.result === 'hold_failed' && outcome.sale.shard !== victim).length;
  console.log(`hold_failed on the other shards' events: ${failedElsewhere}`);
  expect(failedElsewhere).toBeLessThanOrEqual(
    // A command already in flight to a shard whose slots the client is refreshing may fail once: a handful, never the others' sale.
    Math.ceil(ATTEMPTS * 0.01),
  );
  expect(outcomes.filter((outcome) => outcome.result === 'held' && outcome.sale.shard !== victim).length).toBeGreaterThan(0);

  // The dead shard's events sell again once rebuilt.
  await eventually('the restarted shard to sell', () => attempt(onVictim[0]!), (outcome) => outcome.result === 'held' || outcome.result === 'exceeds_availability', 30_000);

  for (const sale of sales) {
    const live = await liveHolds(sale);
    // Every hold an answer reported is recorded as held; none beyond capacity.
    const answered = outcomes.filter((outcome) => outcome.sale === sale && outcome.result === 'held').map((outcome) => outcome.id);
    expect(answered.filter((id) => !live.includes(id))).toEqual([]);
    expect(live.length).toBeLessThanOrEqual(CAPACITY);
    // The counter, rebuilt or not, is capacity minus the holds PostgreSQL keeps (nothing was sold).
    expect(await available(sale)).toBe(CAPACITY - live.length);
    // No orphan: every hold Redis keeps for the event is one PostgreSQL records as held.
    const inRedis = (await keysEverywhere(redis, `{ev:${sale.eventId}}:hold:*`)).map((key) => key.split(':hold:')[1]!);
    expect(inRedis.filter((id) => !live.includes(id))).toEqual([]);
  }
});
