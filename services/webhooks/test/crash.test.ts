/**
 * Nothing is lost when a webhooks process dies: one is SIGKILLed while it
 * is consuming events and has deliveries in flight; a second process with
 * the same consumer group (and database) takes over the partitions from
 * the last committed offsets and the attempts whose lease ran out, and
 * every event reaches every subscribed endpoint at least once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createKafka, createLogger, ensureTopic, randomBase62 } from '@partner-api/shared';
import { kafkaBrokers } from '../../shared/test/support';
import { eventBody, eventProducer, Receiver, scratchDatabase, waitFor } from './support';

const EVENTS = 400;
const organisationId = 830_000 + Math.floor(Math.random() * 9_999);
const topic = `it.webhooks.crash.${randomBase62(8)}`;
let database: Awaited<ReturnType<typeof scratchDatabase>>;
let receiver: Receiver;
const children: ChildProcess[] = [];

/** The built service in its own process (`make test-integration` builds first). */
function startProcess(databaseUrl: string): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      KAFKA_TOPIC: topic,
      KAFKA_GROUP_ID: `it-crash-${topic}`,
      KAFKA_SESSION_TIMEOUT_MS: '6000',
      GRPC_PORT: '0',
      OPS_PORT: '0',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'true',
      LOG_LEVEL: 'warn',
      OTEL_SDK_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  children.push(child);
  return { child, output: () => output };
}

beforeAll(async () => {
  database = await scratchDatabase();
  receiver = await new Receiver().start();
  receiver.delayMs = 40;
  await ensureTopic(createKafka({ brokers: kafkaBrokers(), clientId: 'webhooks-crash-it', logger: createLogger('it', 'silent') }), topic);
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.stop();
  await database?.drop();
}, 30_000);

it('delivers every event to every endpoint after the process sending them is killed', async () => {
  for (const name of ['a', 'b']) {
    await database.pool.query(`INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES ($1, $2, '{*}', 'live', $3)`, [
      organisationId,
      `${receiver.url}/${name}`,
      `whsec_${randomBase62(32)}`,
    ]);
  }
  const producer = await eventProducer();
  const events = Array.from({ length: EVENTS }, () => eventBody(organisationId, 'ticket.issued'));
  await producer.send(topic, events.map((event) => event.body));
  await producer.close();

  const first = startProcess(database.url);
  await waitFor(() => receiver.requests.length >= 40, 30_000, `the first process to deliver (output: ${first.output()})`);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const deliveredByFirst = new Set(receiver.requests.map((request) => request.headers['service-event-id'])).size;
  expect(deliveredByFirst).toBeLessThan(EVENTS);

  const second = startProcess(database.url);
  const delivered = (endpoint: string) => new Set(receiver.requests.filter((request) => request.path === endpoint).map((request) => request.headers['service-event-id']));
  await waitFor(() => delivered('/a').size === EVENTS && delivered('/b').size === EVENTS, 60_000, `every event at both endpoints (output: ${second.output()})`);

  const ids = new Set(events.map((event) => event.id));
  expect([...delivered('/a')].every((id) => ids.has(String(id)))).toBe(true);

  // Attempts the killed process had in flight are sent again once their lease runs out (receivers dedupe on the id).
  const unfinished = async () =>
    (await database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status <> 'succeeded'")).rows[0]!.n;
  await waitFor(async () => (await unfinished()) === 0, 30_000, 'the attempts in flight at the kill to be sent again');
  const { rows } = await database.pool.query<{ events: number; deliveries: number }>(
    'SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM deliveries) AS deliveries',
  );
  expect(rows[0]).toEqual({ events: EVENTS, deliveries: 2 * EVENTS });
}, 120_000);
