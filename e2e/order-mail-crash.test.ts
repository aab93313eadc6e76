/**
 * The order email survives its mailing process dying (D412). A tickets
 * process of the test's own (its own database, topic and consumer group,
 * so the stack's processes never see its orders; the stack's inventory for
 * the event) reads `order.completed` as the orders service's outbox relay
 * publishes it, queues the buyer's email and sends it to a loopback SMTP
 * server, which keeps what it is sent. It is SIGKILLed twice:
 *
 * 1. right after the order committed and its email was queued, before any
 *    send: a second process sends it, exactly once;
 * 2. in the middle of the send, after the mail server has the whole message
 *    but before it answered: the server counts it as received, the process
 *    never learned so, and the second process sends it again once the
 *    first one's lease runs out. Two copies arrive with one Message-ID, so
 *    a mail system (or the reader's client) can tell the second is a
 *    repeat: at least once, the duplicate counted here and explained.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { SMTPServer } from 'smtp-server';
import { buildEvent, createKafka, createLogger, ensureTopic, randomBase62 } from '@partner-api/shared';
import { applyMigrationFiles } from '../services/shared/test/support';
import { env } from './support/api';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { freePort, startServiceProcess, type ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

interface Received {
  to: string;
  messageId: string;
}

/** A loopback SMTP server keeping every message; `hold` keeps the next one's answer back until released. */
class MailSink {
  readonly received: Received[] = [];
  hold = false;
  onHeld: (() => void) | undefined;
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address).join(), messageId: /^Message-ID: (.+)$/im.exec(raw)?.[1]?.trim() ?? '' });
        if (this.hold) {
          this.hold = false;
          this.onHeld?.(); // the sender is killed now; `callback` is never called
          return;
        }
        callback();
      });
    },
  });
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const name = `mail_crash_${randomBase62(8).toLowerCase()}`;
const topic = `e2e.mail-crash.${name}`;
const groupId = `e2e-mail-crash-${name}`;
const kafka = createKafka({ brokers: env('KAFKA_BROKERS').split(','), clientId: 'e2e-mail-crash', logger: createLogger('e2e', 'warn') });
const admin = new Pool({ connectionString: env('DATABASE_URL'), max: 1 });
let databaseUrl: string;
let db: Pool;
const sink = new MailSink();
let organisationId: number;
let eventId: bigint;
let current: ServiceProcess | undefined;
let ports: { grpc: number; ops: number };

beforeAll(async () => {
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(env('DATABASE_URL'));
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  db = new Pool({ connectionString: databaseUrl, max: 2, options: '-c search_path=tickets' });
  db.on('error', () => undefined); // DROP DATABASE … WITH (FORCE) ends these
  await db.query('CREATE SCHEMA tickets');
  await applyMigrationFiles(db, path.join(__dirname, '..', 'services', 'shared', 'migrations', 'outbox'));
  await applyMigrationFiles(db, path.join(__dirname, '..', 'services', 'tickets', 'migrations'));
  await ensureTopic(kafka, topic, 1);
  await sink.start();
  const org = await newOrganisation(['events:read']);
  organisationId = org.id;
  const inventory = inventoryClient();
  const event = await inventory.upsertEvent(
    { fields: { slug: uniqueSlug('crash-mail'), title: 'Crash Mail', startsAt: new Date(Date.now() + 20 * 86_400_000).toISOString(), timezone: 'Australia/Perth' } },
    operatorContext(org.id),
  );
  inventory.close();
  eventId = event.id;
  ports = { grpc: await freePort(), ops: await freePort() };
}, 60_000);

afterAll(async () => {
  await current?.kill();
  await sink.close();
  await db?.end();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  await kafkaAdmin.deleteGroups([groupId]).catch(() => undefined);
  await kafkaAdmin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await kafkaAdmin.disconnect();
}, 60_000);

/** A tickets process on the test's database, topic and group, mailing the sink. */
async function startTickets(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  current = await startServiceProcess(
    'tickets',
    {
      DATABASE_URL: databaseUrl,
      KAFKA_TOPIC: topic,
      ORDER_MAIL_GROUP_ID: groupId,
      ORDER_MAIL_SESSION_TIMEOUT_MS: '6000',
      GRPC_PORT: String(ports.grpc),
      OPS_PORT: String(ports.ops),
      GUEST_MAILER: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      TICKET_MAIL_INTERVAL_MS: '200',
      TICKET_MAIL_LEASE_MS: '3000',
      ...extra,
    },
    { logName: 'test-tickets-mail-crash' },
  );
  await groupIsStable();
  return current;
}

/** The group has its partition: a new group starts at the topic's end, so an event must come after this. */
async function groupIsStable(): Promise<void> {
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  try {
    for (const deadline = Date.now() + 30_000; ; await sleep(200)) {
      const { groups } = await kafkaAdmin.describeGroups([groupId]);
      if (groups[0]?.state === 'Stable' && groups[0].members.length === 1) return;
      if (Date.now() > deadline) throw new Error(`consumer group ${groupId} is ${groups[0]?.state}`);
    }
  } finally {
    await kafkaAdmin.disconnect();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition()); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** An order completed as the orders service completes one: its tickets issued, then order.completed published by the outbox relay. */
async function completeOrder(email: string): Promise<string> {
  const orderId = randomUUID();
  await db.query(
    `INSERT INTO tickets (organisation_id, barcode, order_id, position, event_id, ticket_type_id, pool_id, ticket_type_name,
                          attendee_first_name, attendee_last_name, attendee_email, price_cents, comp)
     SELECT $1, $2 || n, $3, n, $4, 1, 1, 'GA', 'Cara', 'Sh', $5, 5000, false FROM generate_series(0, 1) AS n`,
    [organisationId, randomBase62(21), orderId, eventId.toString(), email],
  );
  const producer = kafka.producer();
  await producer.connect();
  const event = buildEvent('order.completed', { organisationId, livemode: true }, { object: 'order', id: orderId, customer: { email, first_name: 'Cara', last_name: 'Sh' } });
  await producer.send({ topic, messages: [{ key: `order:${orderId}`, value: JSON.stringify(event) }] });
  await producer.disconnect();
  return orderId;
}

const mailRow = async (orderId: string) =>
  (await db.query<{ state: string; attempts: number }>("SELECT state, attempts FROM ticket_mails WHERE order_id = $1 AND kind = 'order'", [orderId])).rows[0];

it('SIGKILL after the order committed and its email was queued, before the send: the next process sends it exactly once', async () => {
  // A sender that never gets round to it: this process only queues.
  const first = await startTickets({ TICKET_MAIL_INTERVAL_MS: '600000' });
  const email = `crash-queued-${name}@example.com`;
  const orderId = await completeOrder(email);
  await waitFor('the email to be queued', async () => (await mailRow(orderId)) !== undefined);
  await first.kill();

  await startTickets();
  await waitFor('the email to be sent', async () => (await mailRow(orderId))?.state === 'sent');
  await sleep(1_500); // anything more would have arrived by now
  const copies = sink.received.filter((mail) => mail.to === email);
  expect(copies).toHaveLength(1);
  expect(await mailRow(orderId)).toEqual({ state: 'sent', attempts: 1 });
  await current!.stop();
});

it('SIGKILL while the mail server has the message but has not answered: sent again after the lease, one Message-ID, the duplicate counted', async () => {
  const first = await startTickets();
  const email = `crash-mid-send-${name}@example.com`;
  const killed = new Promise<void>((resolve) => {
    sink.onHeld = () => void first.kill().then(resolve);
  });
  sink.hold = true;
  const orderId = await completeOrder(email);
  await killed;
  expect((await mailRow(orderId))?.state).toBe('pending'); // the process died before it could mark it sent

  await startTickets();
  await waitFor('the email to be sent again', async () => (await mailRow(orderId))?.state === 'sent');
  const copies = sink.received.filter((mail) => mail.to === email);
  // Twice: once into the dead process's silence, once by its successor. Same message, same id.
  expect(copies).toHaveLength(2);
  expect(copies[0]!.messageId).toMatch(/^<mail-\d+\.order@/);
  expect(copies[1]!.messageId).toBe(copies[0]!.messageId);
  expect(await mailRow(orderId)).toEqual({ state: 'sent', attempts: 2 });
  console.log(`mid-send crash: ${copies.length} copies of ${copies[0]!.messageId} received (1 duplicate, the send the killed process never heard answered)`);
  await current!.stop();
});
