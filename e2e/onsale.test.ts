/**
 * No oversell (issue #5): on-sale bursts through two gateways, two orders
 * and two inventory processes sharing PostgreSQL and Redis (the stack `make
 * up` started plus a replica chain, support/stack-replica.ts), checked
 * against the durable record in PostgreSQL and the live counter in Redis.
 *
 * A: 2,000 concurrent checkouts on 500 tickets; then half the holds expire
 *    and exactly those tickets come back.
 * B: Redis (on a Redis Cluster, the event's shard) is SIGKILLed mid-burst
 *    and started again; afterwards PostgreSQL, Redis and the API agree, and
 *    the rest of the stock sells exactly.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { availabilityKey, expiryKey, holdKey } from '@partner-api/inventory';
import { createPool, isCluster, redisFromEnv, shardOf, type RedisClient } from '@partner-api/shared';
import { env } from './support/api';
import { inventoryClient, keyAdmin, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { startStackReplica, type StackReplica } from './support/stack-replica';

jest.setTimeout(60_000);

const ROOT = path.join(__dirname, '..');
const SWEEP_MS = 1_000; // the inventory default, on both inventory processes
/** How long inventory's Redis client waits for an answer (redis-gate.ts): the longest a take can stay in flight. */
const INVENTORY_REDIS_COMMAND_TIMEOUT_MS = 5_000;

let replica: StackReplica;
let inventory: InventoryClient;
let org: { id: number; key: string };
let db: ReturnType<typeof createPool>;
let redis: RedisClient;
let gateways: string[];
const agents: http.Agent[] = [];

beforeAll(async () => {
  [replica, org] = await Promise.all([
    startStackReplica({ env: { inventory: { HOLD_SWEEP_INTERVAL_MS: String(SWEEP_MS) } } }),
    newOrganisation(['orders:write', 'orders:read', 'events:read']),
  ]);
  gateways = [env('BASE_URL'), replica.baseUrl];
  inventory = inventoryClient();
  db = createPool({ url: env('DATABASE_URL'), schema: 'inventory', max: 4 });
  redis = redisFromEnv(process.env, { connection: { maxRetriesPerRequest: 1 } });
  redis.on('error', () => undefined); // test B restarts the server under this client; it reconnects
}, 60_000);

afterAll(async () => {
  for (const agent of agents) agent.destroy();
  inventory?.close();
  await replica?.stop();
  await db?.end();
  redis?.disconnect();
});

// --- HTTP -------------------------------------------------------------------

/** What one request got: a status and parsed body, or (status 0) the reason it got nothing. */
interface Outcome {
  gateway: string;
  status: number;
  body: { id?: string; status?: string; error?: { type: string; code: string; message: string } } & Record<string, unknown>;
  failure?: string;
  ms: number;
  /** Seconds, from a 429's Retry-After. */
  retryAfter?: number;
}

/** Keep-alive sockets, at most 200 per gateway: 2,000 requests at once without 2,000 connections. */
const agentFor = (() => {
  const byOrigin = new Map<string, http.Agent>();
  return (origin: string) => {
    let agent = byOrigin.get(origin);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
      byOrigin.set(origin, agent);
      agents.push(agent);
    }
    return agent;
  };
})();

/**
 * One API call as a partner's client makes it: a 429 (the gateway shedding
 * a burst, D441) is sent again after its Retry-After plus jitter (D435);
 * anything else is the answer.
 */
async function call(gateway: string, method: string, route: string, body?: unknown, timeoutMs = 20_000): Promise<Outcome> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await callOnce(gateway, method, route, body, timeoutMs);
    if (outcome.status !== 429 || attempt === 10) return outcome;
    await sleep((outcome.retryAfter ?? 1) * 1_000 * (1 + Math.random()));
  }
}

/** One API call with a hard time limit (queueing for a socket included): nothing may hang. */
function callOnce(gateway: string, method: string, route: string, body?: unknown, timeoutMs = 20_000): Promise<Outcome> {
  const started = Date.now();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const done = (status: number, parsed: Outcome['body'], failure?: string, retryAfter?: number) =>
      resolve({ gateway, status, body: parsed, failure, ms: Date.now() - started, retryAfter });
    const request = http.request(
      `${gateway}${route}`,
      {
        method,
        agent: agentFor(gateway),
        signal: AbortSignal.timeout(timeoutMs),
        headers: { authorization: `Bearer ${org.key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => done(0, {}, error.message));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            const retryAfter = response.headers['retry-after'] === undefined ? undefined : Number(response.headers['retry-after']);
            done(response.statusCode ?? 0, text ? JSON.parse(text) : {}, undefined, retryAfter);
          } catch {
            done(response.statusCode ?? 0, {}, `not JSON: ${text.slice(0, 200)}`);
          }
        });
      },
    );
    request.on('error', (error) => done(0, {}, error.name === 'AbortError' || error.name === 'TimeoutError' ? 'timed out' : error.message));
    request.end(payload);
  });
}

const checkout = (gateway: string, slug: string, typeId: number) =>
  call(gateway, 'POST', '/checkout_sessions', { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 1 }] });

/** "201", "422 exceeds_availability", "500 hold_failed", "0 timed out": how many of each. */
function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const label = outcome.status === 0 ? `0 ${outcome.failure}` : outcome.status === 201 ? '201' : `${outcome.status} ${outcome.body.error?.code ?? outcome.failure ?? '?'}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** p50/p95/max response time in ms. */
function percentiles(outcomes: Outcome[]): string {
  const ms = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return `p50 ${at(0.5)} p95 ${at(0.95)} max ${ms[ms.length - 1] ?? 0}`;
}

/** `available` of the event's only ticket type, as each gateway reports it (null when a gateway cannot answer). */
async function apiAvailability(slug: string): Promise<Array<number | null>> {
  return Promise.all(
    gateways.map(async (gateway) => {
      const { status, body } = await call(gateway, 'GET', `/events/${slug}/ticket_types`, undefined, 5_000);
      return status === 200 ? Number((body.data as Array<{ available: number }>)[0]!.available) : null;
    }),
  );
}

// --- the stores ---------------------------------------------------------------

interface OnSale {
  slug: string;
  eventId: string;
  poolId: string;
  typeId: number;
  capacity: number;
}

/** A published event of the test organisation with one pool of `capacity` and a GA type on it, through inventory's admin API. */
async function onSaleEvent(capacity: number): Promise<OnSale> {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('onsale');
  const event = await inventory.upsertEvent(
    { fields: { slug, title: 'On-sale Test', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } },
    ctx,
  );
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '89.50', bookingFee: '4.50', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id.toString(), poolId: pool.id.toString(), typeId: Number(type.id), capacity };
}

const counterKey = (sale: OnSale) => availabilityKey(sale.eventId, sale.poolId);

async function redisCounter(sale: OnSale): Promise<number | null> {
  const value = await redis.get(counterKey(sale));
  return value === null ? null : Number(value);
}

/** The durable record: hold ids by state, and the pool's sold count. */
async function durable(sale: OnSale): Promise<{ held: Set<string>; released: Set<string>; committed: Set<string>; sold: number }> {
  const { rows } = await db.query<{ id: string; state: string }>('SELECT id, state FROM inventory.holds WHERE event_id = $1', [sale.eventId]);
  const { rows: pools } = await db.query<{ sold: number }>('SELECT sold FROM inventory.pools WHERE id = $1', [sale.poolId]);
  const ids = (state: string) => new Set(rows.filter((row) => row.state === state).map((row) => row.id));
  return { held: ids('held'), released: ids('released'), committed: ids('committed'), sold: Number(pools[0]!.sold) };
}

/** The durable record once it has stopped moving: the same held rows in two reads a second apart. */
async function settled(sale: OnSale): Promise<Awaited<ReturnType<typeof durable>>> {
  let before = await durable(sale);
  for (let reads = 0; reads < 15; reads += 1) {
    await sleep(1_000);
    const now = await durable(sale);
    if (sorted(now.held).join() === sorted(before.held).join() && now.sold === before.sold) return now;
    before = now;
  }
  throw new Error(`the holds of event ${sale.eventId} were still changing 15 s after the burst`);
}

/** The hold records Redis keeps for the event (every one is in its expiry index): id → tickets. */
async function redisHolds(sale: OnSale): Promise<Map<string, number>> {
  const ids = await redis.zrange(expiryKey(sale.eventId), '0', '-1');
  const records = ids.length === 0 ? [] : await redis.mget(ids.map((id) => holdKey(sale.eventId, id)));
  return new Map(
    ids.map((id, index) => {
      const record = records[index] ? (JSON.parse(records[index]!) as { pools: Array<{ quantity: number }> }) : { pools: [] };
      return [id, record.pools.reduce((sum, line) => sum + line.quantity, 0)];
    }),
  );
}

/** What a failed check needs to say: each held row nobody was given, its session, its times and whether Redis took it. */
async function strayReport(sale: OnSale, state: { held: Set<string> }, created: string[], live: Map<string, number>): Promise<string> {
  const strays = [...state.held].filter((id) => !created.includes(id));
  const { rows } = await db.query<{ id: string; created_at: Date; updated_at: Date; status: string | null }>(
    `SELECT h.id, h.created_at, h.updated_at, s.status
       FROM inventory.holds h LEFT JOIN orders.checkout_sessions s ON s.id::text = h.id
      WHERE h.id = ANY($1::text[])`,
    [strays],
  );
  const given = created.filter((id) => !live.has(id)).length;
  return JSON.stringify({
    event: sale.eventId,
    held: state.held.size,
    sessionsGiven: created.length,
    givenWithoutRedisRecord: given,
    redisRecordsWithoutHeldRow: [...live.keys()].filter((id) => !state.held.has(id)),
    strays: rows.map((row) => ({ ...row, inRedis: live.has(row.id) })),
  });
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const infra = promisify(execFile);
const INFRA = path.join(ROOT, 'deploy/local/infra.sh');

/** An ops port's /readyz: 200 or 503 and what fails (status 0 when nothing answers). */
async function readiness(opsUrl: string): Promise<{ status: number; failing: string[] }> {
  try {
    const response = await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(3_000) });
    return { status: response.status, failing: ((await response.json()) as { failing: string[] }).failing };
  } catch {
    return { status: 0, failing: [] };
  }
}
const sorted = (ids: Iterable<string>) => [...ids].sort();
const createdIds = (outcomes: Outcome[]) => outcomes.filter((outcome) => outcome.status === 201).map((outcome) => outcome.body.id!);

// --- the tests ----------------------------------------------------------------

it('2,000 concurrent checkout attempts through two gateways and two inventory processes at a pool of 500', async () => {
  const sale = await onSaleEvent(500);
  expect(await apiAvailability(sale.slug)).toEqual([500, 500]);

  const started = Date.now();
  const outcomes = await Promise.all(Array.from({ length: 2_000 }, (_, i) => checkout(gateways[i % 2]!, sale.slug, sale.typeId)));
  const burstMs = Date.now() - started;

  // Exactly the stock, every refusal the spec's, nothing failed.
  expect(tally(outcomes)).toEqual({ '201': 500, '422 exceeds_availability': 1_500 });
  for (const refused of outcomes.filter((outcome) => outcome.status === 422)) {
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'exceeds_availability' });
  }
  const created = createdIds(outcomes);
  expect(new Set(created).size).toBe(500);
  const perGateway = gateways.map((gateway) => outcomes.filter((outcome) => outcome.gateway === gateway && outcome.status === 201).length);
  console.log(`A: 2,000 attempts in ${burstMs} ms; sold per gateway ${perGateway.join(' + ')}; latency ${gateways.map((gateway) => percentiles(outcomes.filter((o) => o.gateway === gateway))).join(' | ')}`);

  // The API, Redis and PostgreSQL agree: nothing left, and exactly the 500 sessions hold tickets.
  expect(await apiAvailability(sale.slug)).toEqual([0, 0]);
  expect(await redisCounter(sale)).toBe(0);
  const afterBurst = await durable(sale);
  expect(sorted(afterBurst.held)).toEqual(sorted(created));
  expect(afterBurst.sold).toBe(0);

  // Half the sessions run out of time (as if 15 minutes had passed for them).
  const lapsing = sorted(created).slice(0, 250);
  const staying = sorted(created).slice(250);
  const holds = await db.query("UPDATE inventory.holds SET expires_at = now() - interval '1 second' WHERE id = ANY($1::text[]) AND state = 'held'", [lapsing]);
  const sessions = await db.query("UPDATE orders.checkout_sessions SET expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [lapsing]);
  expect([holds.rowCount, sessions.rowCount]).toEqual([250, 250]);

  // Both inventory processes sweep; exactly those 250 tickets come back.
  await waitFor('the sweepers to release the lapsed holds', () => durable(sale), (state) => state.released.size >= 250);
  await waitFor('the stock to come back', () => apiAvailability(sale.slug), (seen) => seen.every((value) => value !== null && value >= 250));
  await sleep(SWEEP_MS + 500); // another sweep on each process: nothing may come back twice
  expect(await apiAvailability(sale.slug)).toEqual([250, 250]);
  expect(await redisCounter(sale)).toBe(250);
  const afterSweep = await durable(sale);
  // (Refused attempts that got as far as recording a hold are `released` too: only the sold sessions count here.)
  expect(lapsing.filter((id) => !afterSweep.released.has(id))).toEqual([]);
  expect(sorted(afterSweep.held)).toEqual(staying);
  expect(afterSweep.committed.size).toBe(0);

  // The sessions say so through the API, whichever gateway is asked.
  const reads = await Promise.all(sorted(created).map((id, i) => call(gateways[i % 2]!, 'GET', `/checkout_sessions/${id}`)));
  const statusOf = new Map(reads.map((read) => [read.body.id, `${read.status} ${read.body.status}`]));
  expect(lapsing.filter((id) => statusOf.get(id) !== '200 expired')).toEqual([]);
  expect(staying.filter((id) => statusOf.get(id) !== '200 open')).toEqual([]);
});

it("kill Redis (on a cluster, the event's shard) mid-burst and restart it", async () => {
  const CAPACITY = 400;
  const ATTEMPTS = 1_500;
  const SPREAD_MS = 2_000;
  const MORE = 50;
  const sale = await onSaleEvent(CAPACITY);
  expect(await apiAvailability(sale.slug)).toEqual([CAPACITY, CAPACITY]);
  expect(await redisCounter(sale)).toBe(CAPACITY); // (and a cluster client knows its slots from here on)

  // A key the replica gateway has cached as usable, then revoked behind its back (the change reaches it
  // only through the key's version in Redis): it must stay revoked there once Redis has forgotten every version.
  const revoked = await keyAdmin(async (admin) => admin.issueKey({ organisationId: org.id, name: 'revoked', mode: 'live', scopes: ['events:read'], rateLimit: 1_000 }));
  const asRevoked = (gateway: string) => fetch(`${gateway}/events/${sale.slug}`, { headers: { authorization: `Bearer ${revoked.secret}` }, signal: AbortSignal.timeout(5_000) });
  expect((await asRevoked(replica.baseUrl)).status).toBe(200);
  await keyAdmin((admin) => admin.revokeKey(org.id, revoked.id));
  expect((await asRevoked(gateways[0]!)).status).toBe(401);

  // 1,500 attempts over about two seconds, alternating gateways; Redis dies early in the burst and is started again.
  const started = Date.now();
  const burst = Promise.all(
    Array.from({ length: ATTEMPTS }, async (_, i) => {
      await sleep((i * SPREAD_MS) / ATTEMPTS);
      return checkout(gateways[i % 2]!, sale.slug, sale.typeId);
    }),
  );
  // One Redis: the server dies. A cluster (make test-e2e-redis-cluster): the shard that keeps this event.
  const shard = isCluster(redis) ? shardOf(redis, counterKey(sale)) : undefined;
  const redisEnv = { ...process.env, ...(shard ? { REDIS_CLUSTER: '3' } : {}) };
  await sleep(SPREAD_MS / 4);
  const killedAt = Date.now() - started;
  await infra(INFRA, ['kill', 'redis', ...(shard ? [shard.split(':')[1]!] : [])], { cwd: ROOT, env: redisEnv });
  if (shard) {
    // Only this event's shard is gone: inventory stays ready for the events on the others (D204).
    await sleep(1_000);
    expect((await readiness(replica.processes.inventory.opsUrl)).status).toBe(200);
  } else {
    // While Redis is gone, the inventory says it is not ready (and why).
    const down = await waitFor('the replica inventory to report Redis failing', () => readiness(replica.processes.inventory.opsUrl), (seen) => seen.status === 503, 3_000);
    expect(down.failing).toContain('redis');
  }
  await infra(INFRA, ['start', 'redis'], { cwd: ROOT, env: redisEnv });
  const restartedAt = Date.now() - started;
  const outcomes = await burst;
  console.log(`B: Redis killed at ${killedAt} ms, back at ${restartedAt} ms; burst over at ${Date.now() - started} ms: ${JSON.stringify(tally(outcomes))}`);

  // Nothing hung or answered outside the envelope: sold, refused for stock, or a 500 api_error while Redis was away.
  expect(outcomes.filter((outcome) => outcome.status === 0)).toEqual([]);
  const outsideEnvelope = outcomes.filter(
    (outcome) =>
      !(outcome.status === 201 && typeof outcome.body.id === 'string') &&
      !(outcome.status === 422 && outcome.body.error?.type === 'invalid_request_error' && outcome.body.error.code === 'exceeds_availability') &&
      !(outcome.status === 500 && outcome.body.error?.type === 'api_error' && ['hold_failed', 'internal_error'].includes(outcome.body.error.code)),
  );
  expect(outsideEnvelope).toEqual([]);

  // No oversell, and every hold PostgreSQL keeps is a session someone was given.
  const created = createdIds(outcomes);
  // A hold is recorded in PostgreSQL before Redis takes it, and released when the take fails: until
  // inventory has finished every take in flight, `held` rows include some Redis refused or never ran.
  // Those finish within the Redis command timeout after the restart (a take sent to the dead server
  // waits that long); then the record must stop moving.
  await sleep(Math.max(0, restartedAt + INVENTORY_REDIS_COMMAND_TIMEOUT_MS + 1_000 - (Date.now() - started)));
  const burstHeld = await settled(sale);
  // Redis: every ticket is in the counter, in a hold record, or sold (each script moves them between the first two).
  // A counter nobody asked for since the restart is rebuilt by the first read: this one.
  await apiAvailability(sale.slug);
  const live = await redisHolds(sale);
  const inRedis = { counter: await redisCounter(sale), records: [...live.values()].reduce((sum, quantity) => sum + quantity, 0) };
  const explain = () => strayReport(sale, burstHeld, created, live);
  expect({ ...inRedis, total: (inRedis.counter ?? 0) + inRedis.records }).toEqual({ ...inRedis, total: CAPACITY - burstHeld.sold });
  if (burstHeld.sold + burstHeld.held.size > CAPACITY) throw new Error(`more held than the pool has: ${await explain()}`);
  // An attempt whose answer orders stopped waiting for (its 5 s deadline, under this load) was told hold_failed while
  // inventory finished the hold: its session stays pending, and the pending-session sweeper releases the hold (D172).
  // Every other hold PostgreSQL keeps is a session someone was given.
  const strays = [...burstHeld.held].filter((id) => !created.includes(id));
  if (strays.length > 0) {
    const { rows } = await db.query<{ status: string }>('SELECT status FROM orders.checkout_sessions WHERE id = ANY($1::uuid[])', [strays]);
    expect(rows.map((row) => row.status).filter((status) => status !== 'pending' && status !== 'failed')).toEqual([]);
    expect(rows).toHaveLength(strays.length);
    await waitFor('the pending-session sweeper to release them', () => durable(sale), (state) => strays.every((id) => !state.held.has(id)), 60_000);
  }
  const afterBurst = await durable(sale);
  expect(sorted(afterBurst.held)).toEqual(sorted(created));

  // Every process comes back by itself (both chains), and the counter is what PostgreSQL says is left.
  const opsUrls = ['http://127.0.0.1:9400', 'http://127.0.0.1:9401', 'http://127.0.0.1:9402', ...Object.values(replica.processes).map((member) => member.opsUrl)];
  await waitFor('every process to be ready again', () => Promise.all(opsUrls.map(async (url) => (await readiness(url)).status)), (seen) => seen.every((status) => status === 200));
  const truth = CAPACITY - afterBurst.sold - afterBurst.held.size;
  expect(await apiAvailability(sale.slug)).toEqual([truth, truth]);
  expect(await redisCounter(sale)).toBe(truth);

  // The revoked key is still refused by the gateway that had cached it as usable.
  const afterRestart = await asRevoked(replica.baseUrl);
  expect(afterRestart.status).toBe(401);
  expect(((await afterRestart.json()) as { error: { code: string } }).error.code).toBe('api_key_revoked');

  // The operator releases 50 more tickets; a follow-up burst sells exactly what is left, and not one more.
  await inventory.upsertPool({ id: BigInt(sale.poolId), fields: { capacity: BigInt(CAPACITY + MORE) } }, operatorContext(org.id));
  const left = truth + MORE;
  expect(await apiAvailability(sale.slug)).toEqual([left, left]);
  const followUp = await Promise.all(Array.from({ length: left + 100 }, (_, i) => checkout(gateways[i % 2]!, sale.slug, sale.typeId)));
  console.log(`B: ${truth} left after the burst (${created.length} sold in it), ${left} after adding ${MORE}; follow-up ${JSON.stringify(tally(followUp))}`);
  expect(tally(followUp)).toEqual({ '201': left, '422 exceeds_availability': 100 });
  const final = await durable(sale);
  expect(final.held.size + final.sold).toBe(CAPACITY + MORE);
  expect(sorted(final.held)).toEqual(sorted([...created, ...createdIds(followUp)]));
  expect(await apiAvailability(sale.slug)).toEqual([0, 0]);
  expect(await redisCounter(sale)).toBe(0);
}, 150_000); // up to a minute of it waiting for the pending-session sweeper
