/**
 * Traces end to end, as a collector would receive them. A stack of its own
 * (gateway, orders, inventory, tickets and webhooks as processes, with the
 * telemetry preload deployments start them with) exports over OTLP to
 * a receiver in this test. It runs on a database, a Kafka topic and a
 * redis-server of its own, so no process of the main stack publishes its
 * outbox rows or sends its deliveries, and needs no fixed port.
 *
 * One partner request, `POST /checkout_sessions`, holds the stock that
 * crosses a ticket type's low-stock threshold: one trace runs from the
 * gateway through orders and inventory, and from the outbox row inventory
 * wrote, through Kafka, to the webhook POST the receiver gets (D150).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { Redis } from 'ioredis';
import { createPool, createServiceClient, gen, randomBase62 } from '@partner-api/shared';
import { KeyAdmin, KeyAdmission, KeyRepository, Organisations } from '@partner-api/gateway';
import { api, env } from './support/api';
import { operatorContext, type InventoryClient } from './support/operator';
import { OtlpReceiver, SpanKind, type ReceivedSpan } from './support/otlp-receiver';
import { freePort, startServiceProcess, type ServiceProcess } from './support/service-process';
import { startStackReplica, type StackReplica } from './support/stack-replica';

jest.setTimeout(120_000);

/** Five processes start on a busy machine: give each longer than the default to report ready. */
const READY_TIMEOUT_MS = 90_000;

const ROOT = path.join(__dirname, '..');
const suffix = randomBase62(8).toLowerCase();
const DATABASE = `traces_e2e_${suffix}`;
const TOPIC = `e2e.traces.${suffix}`;

const otlp = new OtlpReceiver();
let databaseUrl: string;
let redisServer: ChildProcess | undefined;
let redisUrl: string;
const others: ServiceProcess[] = [];
let stack: StackReplica | undefined;
let inventory: InventoryClient | undefined;
let org: { id: number; key: string };

/** A webhook receiver on loopback: records each POST's headers and body, answers 200. */
const webhooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const webhookReceiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    webhooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end('ok');
  });
});

async function adminQuery(sql: string): Promise<void> {
  const admin = new Pool({ connectionString: env('DATABASE_URL'), max: 1 });
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

async function startRedisServer(): Promise<void> {
  const port = await freePort();
  redisUrl = `redis://127.0.0.1:${port}`;
  redisServer = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await waitFor('redis-server', async () => {
      if (redisServer!.exitCode !== null) throw new Error(`redis-server exited with ${redisServer!.exitCode}`);
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      }
    });
  } finally {
    probe.disconnect();
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An organisation with a live key, through the gateway's own key admin on this stack's database and Redis. */
async function newOrganisation(scopes: string[]): Promise<{ id: number; key: string }> {
  const pool = createPool({ url: databaseUrl, schema: 'gateway', max: 2 });
  const redis = new Redis(redisUrl);
  try {
    const repository = new KeyRepository(pool);
    const admin = new KeyAdmin(repository, { pool, notifier: new KeyAdmission(redis) });
    const organisation = await new Organisations(repository).create('Traces Org', `traces-${suffix}`);
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'traces', mode: 'live', scopes, rateLimit: 10_000 });
    return { id: organisation.id, key: key.secret };
  } finally {
    await pool.end();
    await redis.quit();
  }
}

/** What every process of this stack shares: its own stores, and telemetry on, exporting every trace to the receiver. */
function stackEnv(name: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    KAFKA_TOPIC: TOPIC,
    LOG_LEVEL: 'warn',
    // The preload every deployment starts with (service-process.ts leaves it out: other suites run without telemetry).
    NODE_OPTIONS: [process.env.NODE_OPTIONS, '--require @partner-api/shared/telemetry/register'].filter(Boolean).join(' '),
    OTEL_SDK_DISABLED: 'false',
    OTEL_SERVICE_NAME: name,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    // The chart's default sampler, at a ratio that keeps every root.
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '1',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

beforeAll(async () => {
  await otlp.start();
  await new Promise<void>((resolve) => webhookReceiver.listen(0, '127.0.0.1', resolve));
  await startRedisServer();
  await adminQuery(`CREATE DATABASE ${DATABASE}`);
  const url = new URL(env('DATABASE_URL'));
  url.pathname = `/${DATABASE}`;
  databaseUrl = url.toString();
  await promisify(execFile)(process.execPath, ['services/cli/dist/main.js', 'migrate'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } });

  const ticketsPort = await freePort();
  const webhooksPort = await freePort();
  const start = async (name: 'tickets' | 'webhooks', grpcPort: number, extra: Record<string, string>) => {
    others.push(await startServiceProcess(name, { ...stackEnv(name), GRPC_PORT: String(grpcPort), OPS_PORT: String(await freePort()), ...extra }, { logName: `traces-${name}`, timeoutMs: READY_TIMEOUT_MS }));
  };
  await start('tickets', ticketsPort, {});
  await start('webhooks', webhooksPort, { KAFKA_GROUP_ID: `traces-${suffix}`, WEBHOOK_POLL_MS: '100', WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true', KAFKA_SESSION_TIMEOUT_MS: '6000' });
  const backends = { TICKETS_GRPC_ADDR: `127.0.0.1:${ticketsPort}`, WEBHOOKS_GRPC_ADDR: `127.0.0.1:${webhooksPort}` };
  stack = await startStackReplica({
    readyTimeoutMs: READY_TIMEOUT_MS,
    ports: {
      inventory: { ops: await freePort() },
      orders: { ops: await freePort(), http: await freePort() },
      gateway: { ops: await freePort(), http: await freePort() },
    },
    env: {
      inventory: stackEnv('inventory'),
      orders: { ...stackEnv('orders'), ...backends },
      gateway: { ...stackEnv('gateway'), ...backends },
    },
  });
  org = await newOrganisation(['events:read', 'orders:write', 'webhooks:manage']);
  inventory = createServiceClient(gen.inventory.InventoryService, stack.inventoryAddr);
}, 5 * READY_TIMEOUT_MS);

afterAll(async () => {
  inventory?.close();
  await stack?.stop();
  for (const process of others) await process.stop();
  redisServer?.kill('SIGKILL');
  await new Promise<void>((resolve) => webhookReceiver.close(() => resolve()));
  await otlp.stop();
  await adminQuery(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => undefined);
  const admin = new Kafka({ clientId: 'e2e-traces', brokers: env('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [TOPIC] }).catch(() => undefined);
  await admin.disconnect();
}, 60_000); // stopping five service processes, the webhooks one leaving its Kafka consumer group, took 4.6 s

const viaStack = <T>(urlPath: string, options: Parameters<typeof api>[1] = {}) => api<T>(urlPath, { key: org.key, baseUrl: stack!.baseUrl, ...options });

/** A published event with one ticket type on a pool of `capacity` (low-stock threshold: 5). */
async function onSaleEvent(capacity: number) {
  const ctx = operatorContext(org.id);
  const slug = `traces-${randomBase62(8).toLowerCase()}`;
  await inventory!.upsertEvent({ fields: { slug, title: 'Traced', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await inventory!.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await inventory!.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await inventory!.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, typeId: Number(type.id) };
}

const find = (spans: ReceivedSpan[], where: Partial<ReceivedSpan>, what: string): ReceivedSpan => {
  const found = spans.find((span) => Object.entries(where).every(([key, value]) => span[key as keyof ReceivedSpan] === value));
  if (!found) throw new Error(`no ${what} among:\n${spans.map((span) => `  ${span.service} ${span.kind} ${span.name}`).join('\n')}`);
  return found;
};
const parentOf = (spans: ReceivedSpan[], span: ReceivedSpan) => spans.find((candidate) => candidate.spanId === span.parentSpanId);
const parseTraceparent = (header: string | string[] | undefined) => {
  const [version, traceId, spanId, flags] = String(header).split('-');
  return { version, traceId, spanId, flags };
};

it('follows POST /checkout_sessions through gateway, orders and inventory, and its outbox row through Kafka to the webhook POST, as one trace', async () => {
  const receiverUrl = `http://127.0.0.1:${(webhookReceiver.address() as AddressInfo).port}/hooks`;
  const endpoint = await viaStack<{ id: string }>('/webhook_endpoints', { method: 'POST', body: { url: receiverUrl, event_types: ['ticket_type.low_inventory'] } });
  expect(endpoint.status).toBe(201);
  const { slug, typeId } = await onSaleEvent(10);

  // 6 of 10 leaves 4, under the threshold of 5: the hold writes ticket_type.low_inventory to inventory's outbox.
  const checkout = await viaStack<{ id: string; status: string }>('/checkout_sessions', { method: 'POST', body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 6 }] } });
  expect(checkout.status).toBe(201);

  await waitFor('the low_inventory webhook', () => webhooks.some((hook) => hook.headers['service-event-type'] === 'ticket_type.low_inventory'));
  const hook = webhooks.find((received) => received.headers['service-event-type'] === 'ticket_type.low_inventory')!;
  const traceparent = parseTraceparent(hook.headers.traceparent);
  expect(traceparent).toMatchObject({ version: '00', flags: '01' });

  // The receiver's traceparent names the webhooks process's POST span: wait until that, and everything before it, has arrived.
  const exported = () => otlp.trace(traceparent.traceId!);
  await waitFor('the webhook POST span', () => exported().some((span) => span.spanId === traceparent.spanId));
  await waitFor('the gateway span', () => exported().some((span) => span.service === 'gateway' && span.kind === SpanKind.SERVER));
  await new Promise((resolve) => setTimeout(resolve, 500)); // the last batch of each process
  const spans = exported();
  expect(otlp.refused).toEqual([]);

  // One root: the partner's request at the gateway. Every other span's parent is in the trace.
  const roots = spans.filter((span) => !span.parentSpanId);
  expect(roots.map((span) => [span.service, span.kind, span.attributes['http.route']])).toEqual([['gateway', SpanKind.SERVER, '/checkout_sessions']]);
  expect(spans.filter((span) => span.parentSpanId && !parentOf(spans, span)).map((span) => `${span.service} ${span.name}`)).toEqual([]);
  expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['gateway', 'orders', 'inventory', 'webhooks']));

  // gateway → orders: orders' server span is a child of the gateway's client span for the same method.
  const ordersServer = find(spans, { service: 'orders', kind: SpanKind.SERVER }, 'orders gRPC server span');
  expect(parentOf(spans, ordersServer)).toMatchObject({ service: 'gateway', kind: SpanKind.CLIENT, name: ordersServer.name });
  // orders → inventory: the hold, a child of orders' client span.
  const holdServer = spans.find((span) => span.service === 'inventory' && span.kind === SpanKind.SERVER && parentOf(spans, span)?.service === 'orders');
  expect(holdServer).toBeDefined();
  expect(parentOf(spans, holdServer!)).toMatchObject({ kind: SpanKind.CLIENT, name: holdServer!.name });

  // The outbox row's send span continues the hold that wrote it, in inventory.
  const send = find(spans, { service: 'inventory', kind: SpanKind.PRODUCER, name: `send ${TOPIC}` }, 'Kafka send span');
  expect(send.attributes['messaging.message.id']).toBe(hook.headers['service-event-id']);
  expect(parentOf(spans, send)).toBe(holdServer);
  // Kafka → webhooks: the process span is the send span's child, the delivery attempt the process span's, the POST the attempt's.
  const processed = find(spans, { service: 'webhooks', kind: SpanKind.CONSUMER, name: `process ${TOPIC}` }, 'Kafka process span');
  expect(processed.parentSpanId).toBe(send.spanId);
  const deliver = find(spans, { service: 'webhooks', name: 'deliver ticket_type.low_inventory' }, 'delivery attempt span');
  expect(deliver.parentSpanId).toBe(processed.spanId);
  expect(deliver.attributes).toMatchObject({ 'webhook.event.id': hook.headers['service-event-id'], 'webhook.attempt': 1 });
  const post = find(spans, { spanId: traceparent.spanId }, 'webhook POST span');
  expect(post).toMatchObject({ service: 'webhooks', kind: SpanKind.CLIENT, parentSpanId: deliver.spanId });
  expect(post.attributes['http.response.status_code']).toBe(200);
});

it("samples by the caller's decision: a partner's sampled traceparent is continued, an unsampled one records nothing", async () => {
  const { slug } = await onSaleEvent(50);
  const sampled = { traceId: randomHex(32), spanId: randomHex(16) };
  const unsampled = { traceId: randomHex(32), spanId: randomHex(16) };
  for (const [parent, flags] of [[sampled, '01'], [unsampled, '00']] as const) {
    const response = await viaStack(`/events/${slug}/ticket_types`, { headers: { traceparent: `00-${parent.traceId}-${parent.spanId}-${flags}` } });
    expect(response.status).toBe(200);
  }
  await waitFor('the sampled request to reach inventory', () => otlp.trace(sampled.traceId).some((span) => span.service === 'inventory' && span.kind === SpanKind.SERVER));
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(find(otlp.trace(sampled.traceId), { service: 'gateway', kind: SpanKind.SERVER }, 'gateway server span').parentSpanId).toBe(sampled.spanId);
  expect(otlp.trace(unsampled.traceId)).toEqual([]);
});

function randomHex(length: number): string {
  return Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}
