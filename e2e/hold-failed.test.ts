/**
 * `500 hold_failed` when the inventory cannot reach Redis, and the spec's
 * promise that a retry with the same Idempotency-Key is safe: nothing is
 * written by the failed attempts, and once Redis is back the retry holds
 * the tickets exactly once.
 *
 * A replica chain (support/stack-replica.ts) whose inventory uses a Redis
 * server of its own, started and killed by this test; the gateways keep
 * the shared Redis (keys, rate limits, idempotency records), so only the
 * hold path loses its store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { createPool } from '@partner-api/shared';
import { api, env, type ErrorBody } from './support/api';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { startStackReplica, type StackReplica } from './support/stack-replica';

jest.setTimeout(60_000);

const PRIVATE_REDIS_PORT = 56399;
const privateRedisUrl = `redis://127.0.0.1:${PRIVATE_REDIS_PORT}`;

let privateRedis: ChildProcess | undefined;
let replica: StackReplica;
let inventory: InventoryClient;
let org: { id: number; key: string };
let db: ReturnType<typeof createPool>;

/** A throwaway redis-server on loopback, without persistence, ready for commands. */
async function startPrivateRedis(): Promise<void> {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(PRIVATE_REDIS_PORT), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  privateRedis = child;
  const probe = new Redis(privateRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (is port ${PRIVATE_REDIS_PORT} taken?)`);
      try {
        if (probe.status !== 'ready') await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // not accepting connections yet
      }
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    probe.disconnect();
  }
}

async function killPrivateRedis(): Promise<void> {
  const child = privateRedis;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  await startPrivateRedis();
  [replica, org] = await Promise.all([
    startStackReplica({
      ports: { inventory: { ops: 9481 }, orders: { ops: 9482, http: 4182 }, gateway: { http: 4020, ops: 9420 } },
      env: { inventory: { REDIS_URL: privateRedisUrl } },
    }),
    newOrganisation(['orders:write', 'orders:read', 'events:read']),
  ]);
  inventory = inventoryClient();
  db = createPool({ url: env('DATABASE_URL'), schema: 'inventory', max: 2 });
}, 60_000);

afterAll(async () => {
  inventory?.close();
  await replica?.stop();
  await killPrivateRedis();
  await db?.end();
});

async function onSaleEvent(capacity: number) {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('holdfail');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Hold Failure', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id.toString(), typeId: Number(type.id) };
}

const viaReplica = <T>(path: string, options: Parameters<typeof api>[1] = {}) => api<T>(path, { key: org.key, baseUrl: replica.baseUrl, ...options });

const holdsOf = async (eventId: string) =>
  (await db.query<{ id: string; state: string }>('SELECT id, state FROM holds WHERE event_id = $1 ORDER BY created_at', [eventId])).rows;
const sessionsOf = async (eventId: string) =>
  (await db.query<{ id: string }>('SELECT id FROM orders.checkout_sessions WHERE event_id = $1', [eventId])).rows;

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('answers 500 hold_failed while Redis is unreachable; the same Idempotency-Key then holds once', async () => {
  const { slug, eventId, typeId } = await onSaleEvent(20);
  const body = { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 3 }] };
  const idempotencyKey = `hold-failed-${Date.now()}`;
  const checkout = () => viaReplica<{ id: string; status: string } & ErrorBody>('/checkout_sessions', { method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } });

  // The replica sells normally first.
  expect((await viaReplica<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`)).body.data[0]!.available).toBe(20);

  await killPrivateRedis();
  await waitUntil('the replica inventory to notice', async () => !(await replica.processes.inventory.ready()));

  for (let attempt = 0; attempt < 2; attempt += 1) {
    const failed = await checkout();
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ type: 'api_error', code: 'hold_failed' });
    expect(failed.body.error.message).toMatch(/Idempotency-Key/);
    // A 5xx is not stored: the retry runs again rather than replaying the failure.
    expect(failed.headers.get('idempotent-replayed')).toBeNull();
  }
  // No partial writes: no live hold, no session.
  expect((await holdsOf(eventId)).filter((hold) => hold.state === 'held')).toEqual([]);
  expect(await sessionsOf(eventId)).toEqual([]);

  // Redis comes back empty; the inventory verifies it and rebuilds the counter from PostgreSQL.
  await startPrivateRedis();
  await waitUntil('the replica inventory to be ready again', () => replica.processes.inventory.ready());

  const held = await checkout();
  expect(held.status).toBe(201);
  expect(held.body.status).toBe('open');
  const replay = await checkout();
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.id).toBe(held.body.id);

  // Exactly one hold of three tickets, on both the durable record and the live counter.
  expect((await holdsOf(eventId)).filter((hold) => hold.state === 'held').map((hold) => hold.id)).toEqual([held.body.id]);
  expect((await sessionsOf(eventId)).map((session) => session.id)).toEqual([held.body.id]);
  expect((await viaReplica<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`)).body.data[0]!.available).toBe(17);
});
