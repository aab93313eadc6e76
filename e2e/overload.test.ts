/**
 * An on-sale's overload, small enough for a test: admission control on a
 * gateway with a tiny limit (fast 429s with Retry-After, no 5xx, no hold
 * for a request turned away), deadlines (a call past its deadline takes no
 * hold) and buyers who leave (their hold is given back at once, unless they
 * sent an Idempotency-Key, whose retry finds the same session). D441-D444.
 */
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { createPool, createServiceClient, gen, type RequestContext } from '@partner-api/shared';
import { api, env, type ErrorBody } from './support/api';
import { parseMetrics, scrape, total } from './support/metrics';
import { inventoryClient, keyAdmin, newOrganisation, operatorContext, publishedEvent, type InventoryClient } from './support/operator';
import { freePort, startServiceProcess, type ServiceProcess } from './support/service-process';
import { startStackReplica, type StackReplica } from './support/stack-replica';

const ORG = () => Number(env('DEMO_ORGANISATION_ID'));
let inventory: InventoryClient;
let key: string;
let db: ReturnType<typeof createPool>;

beforeAll(async () => {
  inventory = inventoryClient();
  key = await keyAdmin(async (admin) => (await admin.issueKey({ organisationId: ORG(), name: 'overload-e2e', mode: 'live', scopes: ['orders:write', 'events:read'], rateLimit: 100_000 })).secret);
});
afterAll(() => inventory.close());

const availableOf = async (slug: string, baseUrl?: string) =>
  (await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key, baseUrl })).body.data[0]!.available;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

jest.setTimeout(30_000);

describe('a gateway driven past a small admission limit', () => {
  let gateway: ServiceProcess;
  let baseUrl: string;
  let opsPort: number;

  beforeAll(async () => {
    const port = await freePort();
    opsPort = await freePort();
    // A limit of 2 (1 for reads), no wait: the third request at once is over it.
    gateway = await startServiceProcess(
      'gateway',
      {
        HTTP_PORT: String(port), OPS_PORT: String(opsPort), GRPC_PORT: '0',
        ADMISSION_INITIAL_LIMIT: '2', ADMISSION_MIN_LIMIT: '2', ADMISSION_MAX_LIMIT: '2', ADMISSION_MAX_WAIT_MS: '0', ADMISSION_CRITICAL_RESERVE: '0.5',
      },
      { logName: 'overload-gateway' },
    );
    baseUrl = `http://127.0.0.1:${port}`;
  }, 60_000);
  afterAll(() => gateway?.stop(), 30_000);

  it('answers the excess at once with 429 rate_limited, Retry-After and the key\'s RateLimit headers, never a 5xx, and holds nothing for it', async () => {
    const { slug, typeId } = await publishedEvent(inventory, ORG(), { slugPrefix: 'overload', title: 'Overload', capacity: 1_000 });
    // One request first, so this process has the key cached (the RateLimit headers of a shed answer come from there).
    expect((await api('/', { key, baseUrl })).status).toBe(200);

    const body = { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 1 }] };
    const answers = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const started = performance.now();
        const response = await api<ErrorBody>('/checkout_sessions', { method: 'POST', key, baseUrl, body });
        return { ...response, ms: performance.now() - started };
      }),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
    const created = answers.filter((answer) => answer.status === 201);
    const shed = answers.filter((answer) => answer.status === 429);
    expect(created.length).toBeGreaterThanOrEqual(2);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) {
      expect(answer.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(answer.body.error.request_id).toMatch(/^req_/);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('ratelimit-limit')).toBe('100000');
      expect(answer.headers.get('ratelimit-remaining')).toBe('0');
      expect(answer.headers.get('ratelimit-reset')).toBe('1');
    }
    // Turned away before any work: each 429 came back before the slowest session was opened.
    expect(Math.max(...shed.map((answer) => answer.ms))).toBeLessThan(Math.max(...created.map((answer) => answer.ms)) + 50);

    // Every ticket held belongs to a session a buyer received.
    expect(await availableOf(slug, baseUrl)).toBe(1_000 - created.length);
    const samples = parseMetrics(await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text());
    expect(total(samples, 'gateway_admission_requests_total', { class: 'critical', outcome: 'shed' })).toBe(shed.length);
    expect(total(samples, 'gateway_admission_limit')).toBe(2);
  });
});

describe('the accept queue (D447)', () => {
  // A full queue drops a burst's connections, whose SYNs come back 1, 3 and 7 s later: seconds no process sees.
  it('the gateway and the hosted pages listen with a backlog of 4,096 connections, not Node’s 511', () => {
    for (const url of [env('BASE_URL'), process.env.CHECKOUT_BASE_URL ?? 'http://127.0.0.1:4100']) {
      const port = new URL(url).port;
      // For a listening socket, ss shows the backlog as Send-Q.
      const listening = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' }).trim().split(/\s+/);
      expect({ port, backlog: Number(listening[2]) }).toEqual({ port, backlog: 4_096 });
    }
  });
});

describe('deadlines', () => {
  it('a hold whose deadline passed before it reached inventory is not taken; one sent beside it in the same batch is', async () => {
    const { slug, typeId } = await publishedEvent(inventory, ORG(), { slugPrefix: 'deadline', title: 'Deadline', capacity: 100 });
    // Batched, as orders sends holds: both calls travel in one CallBatch, each with its own deadline.
    const batching = createServiceClient(gen.inventory.InventoryService, process.env.INVENTORY_GRPC_ADDR ?? '127.0.0.1:15051', { batched: ['holdStock'] });
    try {
      const hold = (ctx: RequestContext) =>
        batching.holdStock({ holdId: randomUUID(), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity: 3 }], ttlSeconds: 900 }, ctx, { deadlineMs: 5_000 });
      const ctx = operatorContext(ORG());
      const [late, onTime] = await Promise.allSettled([hold({ ...ctx, deadline: Date.now() - 1_000 }), hold(ctx)]);
      expect(late.status).toBe('rejected');
      expect(onTime.status).toBe('fulfilled');
      expect(await availableOf(slug)).toBe(97);
      const shed = total(await scrape('inventory'), 'grpc_server_shed_total', { method: 'HoldStock', reason: 'deadline' });
      expect(shed).toBeGreaterThanOrEqual(1);
    } finally {
      batching.close();
    }
  });
});

/**
 * A checkout whose buyer leaves while it is under way: its own replica
 * chain (support/stack-replica.ts), whose inventory is paused (SIGSTOP) so
 * the hold waits; once orders has claimed the session (recorded as pending
 * before the hold is asked for), the client closes its connection without
 * reading, then inventory resumes and the hold is taken for a buyer who
 * is gone. `idempotencyKey`: sent with the request.
 */
async function checkoutAndLeave(replica: StackReplica, organisation: { id: number; key: string }, body: unknown, idempotencyKey?: string): Promise<void> {
  const payload = JSON.stringify(body);
  const pending = async () =>
    Number((await db.query<{ count: string }>("SELECT count(*) FROM orders.checkout_sessions WHERE organisation_id = $1 AND status = 'pending'", [organisation.id])).rows[0]!.count);
  process.kill(replica.processes.inventory.pid, 'SIGSTOP');
  try {
    const request = http.request(`${replica.baseUrl}/checkout_sessions`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${organisation.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
    });
    request.on('error', () => {});
    request.end(payload);
    expect(await until(pending, (count) => count === 1, 10_000)).toBe(1);
    request.destroy();
    // The gateway sees the connection close before inventory answers.
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    process.kill(replica.processes.inventory.pid, 'SIGCONT');
  }
}

describe('buyers who leave mid-checkout', () => {
  let replica: StackReplica;
  let organisation: { id: number; key: string };
  const abandoned = async (outcome: string) =>
    total(parseMetrics(await (await fetch(`${replica.processes.gateway.opsUrl}/metrics`)).text()), 'gateway_abandoned_requests_total', { outcome });
  const available = async (slug: string) =>
    (await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key, baseUrl: replica.baseUrl })).body.data[0]!.available;

  beforeAll(async () => {
    const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
    [replica, organisation] = await Promise.all([
      startStackReplica({ ports: { inventory: { ops: ports[0]! }, orders: { ops: ports[1]!, http: ports[2]! }, gateway: { ops: ports[3]!, http: ports[4]! } }, readyTimeoutMs: 60_000 }),
      newOrganisation(['orders:write', 'orders:read', 'events:read']),
    ]);
    db = createPool({ url: env('DATABASE_URL'), schema: 'orders', max: 2 });
  }, 200_000);
  afterAll(async () => {
    await replica?.stop();
    await db?.end();
  }, 60_000);

  it('without an Idempotency-Key: the hold taken for them goes back at once, not in 15 minutes', async () => {
    const { slug, typeId } = await publishedEvent(inventory, organisation.id, { slugPrefix: 'left', title: 'Left', capacity: 50 });
    await checkoutAndLeave(replica, organisation, { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 4 }] });
    expect(await until(() => abandoned('released'), (count) => count === 1, 10_000)).toBe(1);
    expect(await until(() => available(slug), (count) => count === 50, 5_000)).toBe(50);
    const { rows } = await db.query<{ status: string }>('SELECT status FROM orders.checkout_sessions WHERE organisation_id = $1', [organisation.id]);
    expect(rows.map((row) => row.status)).toEqual(['failed']);
  }, 60_000);

  it('with an Idempotency-Key: the session is kept, and the retry with that key finds it', async () => {
    const { slug, typeId } = await publishedEvent(inventory, organisation.id, { slugPrefix: 'kept', title: 'Kept', capacity: 50 });
    const idempotencyKey = randomUUID();
    const body = { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 4 }] };
    await checkoutAndLeave(replica, organisation, body, idempotencyKey);
    expect(await until(() => abandoned('kept'), (count) => count === 1, 10_000)).toBe(1);
    expect(await until(() => available(slug), (count) => count === 46, 5_000)).toBe(46);
    const retry = await api<{ id: string; status: string }>('/checkout_sessions', { method: 'POST', key: organisation.key, baseUrl: replica.baseUrl, body, headers: { 'idempotency-key': idempotencyKey } });
    expect(retry.status).toBe(201);
    expect(retry.body.status).toBe('open');
    // The same session and hold: nothing more is taken.
    expect(await available(slug)).toBe(46);
  }, 60_000);
});
