/**
 * The webhooks service under test, on real PostgreSQL and Kafka but apart
 * from any running stack: a database and a topic of its own (every webhooks
 * process claims due deliveries from its schema, so sharing one would let
 * another process send a test's deliveries), and receivers on loopback.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { Pool } from 'pg';
import { ApiError, createLogger, createServiceClient, gen, randomBase62, type RequestContext, type ServiceClient, type ServiceRuntime } from '@partner-api/shared';
import { applyMigrationFiles, databaseUrl, kafkaBrokers } from '../../shared/test/support';
import { loadWebhooksConfig, startWebhooks } from '../src';

export { waitFor } from '../../shared/test/support';

const MIGRATIONS = path.join(__dirname, '..', 'migrations');

/** A database of its own with the webhooks schema migrated in; `drop` removes it. */
export async function scratchDatabase(): Promise<{ url: string; pool: Pool; drop: () => Promise<void> }> {
  const name = `webhooks_it_${randomBase62(8).toLowerCase()}`;
  const admin = new Pool({ connectionString: databaseUrl(), max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(databaseUrl());
  url.pathname = `/${name}`;
  const pool = new Pool({ connectionString: url.toString(), max: 4, options: '-c search_path=webhooks' });
  // DROP DATABASE … WITH (FORCE) ends connections that are still closing; that is expected.
  pool.on('error', () => undefined);
  await pool.query('CREATE SCHEMA webhooks');
  await applyMigrationFiles(pool, MIGRATIONS);
  return {
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What a receiver answers: a status, or 'hang' (never answers). */
export type Answer = number | 'hang';

/** An HTTP receiver on loopback that records every request and answers as scripted. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  connections = 0;
  answer: (request: ReceivedRequest) => Answer = () => 200;
  /** How long each answer takes (keeps deliveries in flight). */
  delayMs = 0;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.requests.push(received);
      const answer = this.answer(received);
      if (answer === 'hang') return;
      if (answer >= 300 && answer < 400) res.setHeader('Location', `${this.url}/redirected`);
      setTimeout(() => res.writeHead(answer).end('ok'), this.delayMs);
    });
  });

  url = '';

  async start(): Promise<this> {
    this.server.on('connection', () => (this.connections += 1));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Requests for one event id, in arrival order. */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.headers['service-event-id'] === eventId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export type WebhooksClient = ServiceClient<(typeof gen.webhooks.WebhooksService)['method']>;

export const liveContext = (organisationId: number): RequestContext => ({ organisationId, mode: 'live', keyId: 1, requestId: 'it' });
export const testContext = (organisationId: number): RequestContext => ({ organisationId, mode: 'test', keyId: 2, requestId: 'it' });

export interface ServiceUnderTest {
  runtime: ServiceRuntime;
  client: WebhooksClient;
  topic: string;
  stop(): Promise<void>;
}

/** The service in this process, on the scratch database and its own topic and consumer group. */
export async function startService(database: string, env: Record<string, string> = {}): Promise<ServiceUnderTest> {
  const topic = env.KAFKA_TOPIC ?? `it.webhooks.${randomBase62(8)}`;
  const config = loadWebhooksConfig({
    DATABASE_URL: database,
    KAFKA_BROKERS: kafkaBrokers().join(','),
    KAFKA_TOPIC: topic,
    KAFKA_GROUP_ID: `it-webhooks-${randomBase62(8)}`,
    GRPC_PORT: '0',
    OPS_PORT: '0',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
    ...env,
  });
  const runtime = await startWebhooks(config, createLogger('webhooks-it', 'silent'));
  const client = createServiceClient(gen.webhooks.WebhooksService, `127.0.0.1:${runtime.grpcPort}`);
  return {
    runtime,
    client,
    topic,
    stop: async () => {
      client.close();
      await runtime.stop('test over');
    },
  };
}

/** A producer for raw event bodies on a topic, keyed like the outbox relay keys them. */
export async function eventProducer(): Promise<{ send: (topic: string, bodies: string[]) => Promise<void>; close: () => Promise<void> }> {
  const producer: Producer = new Kafka({ clientId: 'webhooks-it', brokers: kafkaBrokers(), logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  return {
    send: async (topic, bodies) => {
      await producer.send({ topic, messages: bodies.map((value) => ({ key: 'it', value })) });
    },
    close: () => producer.disconnect(),
  };
}

export type ScratchDatabase = Awaited<ReturnType<typeof scratchDatabase>>;
export type EventProducer = Awaited<ReturnType<typeof eventProducer>>;

/** What a delivery suite runs against: a database and a webhooks service of its own, a Kafka producer and a loopback receiver. */
export interface DeliverySuite {
  database: ScratchDatabase;
  service: ServiceUnderTest;
  producer: EventProducer;
  receiver: Receiver;
}

export async function startSuite(env: Record<string, string> = {}): Promise<DeliverySuite> {
  const database = await scratchDatabase();
  const service = await startService(database.url, env);
  return { database, service, producer: await eventProducer(), receiver: await new Receiver().start() };
}

/**
 * A delivery suite's life in Jest hooks: `startSuite` before all, `stopSuite`
 * after all, the receiver answering 200 before each test and `tables`
 * emptied after it (each suite has a database of its own). The object is
 * filled in by the beforeAll hook.
 */
export function deliverySuite(env: Record<string, string>, tables: readonly string[] = ['endpoints']): DeliverySuite {
  const suite = {} as DeliverySuite;
  beforeAll(async () => {
    Object.assign(suite, await startSuite(env));
  }, 60_000);
  afterAll(() => stopSuite(suite), 30_000);
  beforeEach(() => {
    suite.receiver.answer = () => 200;
  });
  afterEach(async () => {
    for (const table of tables) await suite.database.pool.query(`DELETE FROM ${table}`);
  });
  return suite;
}

/** Stops what `startSuite` started, as far as it got. */
export async function stopSuite(suite: Partial<DeliverySuite>): Promise<void> {
  await suite.producer?.close();
  await suite.receiver?.stop();
  await suite.service?.stop();
  await suite.database?.drop();
}

/** A domain event body as the services write it to their outboxes. */
export function eventBody(organisationId: number, type = 'order.completed', livemode = true, created = Math.floor(Date.now() / 1000)): { id: string; body: string } {
  const id = `evt_${randomBase62(24)}`;
  const body = JSON.stringify({
    id,
    object: 'event',
    type,
    api_version: '2026-10-18',
    created,
    livemode,
    organisation_id: organisationId,
    data: { object: { object: 'order', id: '00000000-0000-4000-8000-000000000042' } },
  });
  return { id, body };
}

/** The API error a call failed with (it must fail). */
export async function refusal(call: Promise<unknown>): Promise<{ code: string; param: string | null; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('expected the call to fail');
}
