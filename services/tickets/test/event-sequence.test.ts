/**
 * One ticket's events in order (D264–D266): issued, transferred twice,
 * checked in. Each event's `ordering.sequence` counts up for `ticket:<id>`
 * in the outbox rows, and the bodies the webhooks service delivers carry
 * the same values (outbox → relay → Kafka → webhooks → a loopback
 * receiver). A refused change writes no event and takes no number.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import { connectIdempotentProducer, createKafka, createLogger, ensureTopic, gen, OutboxRelay, randomBase62, type Pool, type RequestContext } from '@partner-api/shared';
import { createScratchSchema, kafkaBrokers } from '../../shared/test/support';
import { liveContext, Receiver, scratchDatabase, startService, waitFor, type ServiceUnderTest } from '../../webhooks/test/support';
import { CheckIns } from '../src/domain/check-ins';
import type { EventDirectory } from '../src/domain/event-directory';
import { Tickets } from '../src/domain/tickets';
import { Transfers } from '../src/domain/transfers';
import { MailRepository } from '../src/storage/mail-repository';
import { TicketRepository } from '../src/storage/ticket-repository';

const organisationId = 840_000 + Math.floor(Math.random() * 9_999);
const ctx: RequestContext = { organisationId, mode: 'live', keyId: 1, requestId: 'it' };
const logger = createLogger('tickets-it', 'silent');
const topic = `it.ordering.${randomBase62(8)}`;

interface Ordering {
  key: string;
  sequence: number;
  updated_at: string;
}

let ticketsSchema: Awaited<ReturnType<typeof createScratchSchema>>;
let pool: Pool;
let tickets: Tickets;
let transfers: Transfers;
let checkIns: CheckIns;
let webhooksDatabase: Awaited<ReturnType<typeof scratchDatabase>>;
let webhooks: ServiceUnderTest;
let receiver: Receiver;

beforeAll(async () => {
  // A schema of its own: a tickets process running beside the tests relays the shared `tickets` outbox to its own topic.
  ticketsSchema = await createScratchSchema(path.join(__dirname, '..', 'migrations'));
  pool = ticketsSchema.pool;
  const repository = new TicketRepository(pool);
  tickets = new Tickets(pool, repository);
  transfers = new Transfers(pool, repository, new MailRepository(pool));
  // The ticket's event is 1; the directory's lookup of the slug is not what this suite is about.
  checkIns = new CheckIns(pool, repository, { eventId: async () => 1n } as unknown as EventDirectory);
  await ensureTopic(createKafka({ brokers: kafkaBrokers(), clientId: 'tickets-it', logger }), topic, 3);
  webhooksDatabase = await scratchDatabase();
  webhooks = await startService(webhooksDatabase.url, { KAFKA_TOPIC: topic });
  receiver = await new Receiver().start();
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await webhooks?.stop();
  await webhooksDatabase?.drop();
  await ticketsSchema?.drop();
}, 30_000);

const outboxOrderings = async (ticketId: bigint) =>
  (
    await pool.query<{ event_id: string; event_type: string; ordering: Ordering; updated_at: string }>(
      "SELECT event_id, event_type, payload->'ordering' AS ordering, payload->'data'->'object'->>'updated_at' AS updated_at FROM outbox WHERE partition_key = $1 ORDER BY id",
      [`ticket:${ticketId}`],
    )
  ).rows;

/** Publishes this schema's unpublished outbox rows to the suite's topic, as a tickets process's relay would. */
async function relayAll(): Promise<void> {
  const kafka = createKafka({ brokers: kafkaBrokers(), clientId: 'tickets-it', logger });
  const relay = new OutboxRelay({ pool, connectProducer: () => connectIdempotentProducer(kafka), topic, logger, partitions: 3 });
  try {
    while ((await relay.publishBatch()) > 0);
  } finally {
    await relay.stop();
  }
}

describe('ordering.sequence of one ticket', () => {
  it('counts up over issue, two transfers and a check-in, in the outbox and in delivered bodies', async () => {
    await webhooks.client.createEndpoint({ url: `${receiver.url}/ordering`, eventTypes: [], mode: '' }, liveContext(organisationId));

    const [issued] = await tickets.issueForOrder(
      ctx,
      create(gen.tickets.IssueTicketsForOrderRequestSchema, {
        orderId: randomUUID(),
        eventId: 1n,
        lines: [{ ticketTypeId: 2n, poolId: 3n, ticketTypeName: 'GA', quantity: 1, unitPrice: '49.50' }],
        attendee: { email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee' },
      }),
    );
    const id = issued!.id!;
    const transfer = (email: string) => transfers.transfer(ctx, create(gen.tickets.TransferTicketRequestSchema, { id, attendee: { email } }));
    await transfer('ben@example.com');
    await transfer('cleo@example.com');
    await checkIns.checkIn(ctx, create(gen.tickets.CheckInRequestSchema, { eventIdOrSlug: '1', ticketId: id }));
    // A checked-in ticket cannot move (D230): no event, no number used.
    await expect(transfer('dan@example.com')).rejects.toMatchObject({ code: 'parameter_invalid' });

    const rows = await outboxOrderings(id);
    expect(rows.map((row) => row.event_type)).toEqual(['ticket.issued', 'ticket.transferred', 'ticket.transferred', 'ticket.checked_in']);
    expect(rows.map((row) => row.ordering.sequence)).toEqual([1, 2, 3, 4]);
    for (const row of rows) {
      expect(row.ordering.key).toBe(`ticket:${id}`);
      expect(row.ordering.updated_at).toBe(row.updated_at);
    }
    // updated_at has whole seconds, so it never decreases but may repeat: the sequence is what breaks ties.
    const times = rows.map((row) => Date.parse(row.ordering.updated_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    await relayAll();
    await waitFor(() => rows.every((row) => receiver.forEvent(row.event_id).length > 0), 20_000, 'the four deliveries');
    const delivered = rows.map((row) => JSON.parse(receiver.forEvent(row.event_id)[0]!.body) as { type: string; ordering: Ordering });
    expect(delivered.map((body) => [body.type, body.ordering.sequence])).toEqual([
      ['ticket.issued', 1],
      ['ticket.transferred', 2],
      ['ticket.transferred', 3],
      ['ticket.checked_in', 4],
    ]);
    expect(delivered.map((body) => body.ordering)).toEqual(rows.map((row) => row.ordering));
    // Longer than the deliveries' wait: the webhooks consumer's first group join alone can take seconds on a busy machine.
  }, 30_000);

  it('gives concurrent changes of one ticket distinct numbers in the order they commit', async () => {
    const [ticket] = await tickets.issueForOrder(
      ctx,
      create(gen.tickets.IssueTicketsForOrderRequestSchema, {
        orderId: randomUUID(),
        eventId: 1n,
        lines: [{ ticketTypeId: 2n, poolId: 3n, ticketTypeName: 'GA', quantity: 1, unitPrice: '49.50' }],
      }),
    );
    const emails = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@example.com`);
    await Promise.all(emails.map((email) => transfers.transfer(ctx, create(gen.tickets.TransferTicketRequestSchema, { id: ticket!.id!, attendee: { email } }))));
    const rows = await outboxOrderings(ticket!.id!);
    expect(rows.map((row) => row.ordering.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    // Each transfer names the attendee the one before it left (D230), so the numbers follow the chain.
    const { rows: chain } = await pool.query<{ sequence: number; previous: string; to: string }>(
      "SELECT (payload->'ordering'->>'sequence')::int AS sequence, payload->'data'->>'previous_attendee_email' AS previous, payload->'data'->'object'->'attendee'->>'email' AS to FROM outbox WHERE partition_key = $1 AND event_type = 'ticket.transferred' ORDER BY 1",
      [`ticket:${ticket!.id}`],
    );
    for (let i = 1; i < chain.length; i += 1) expect(chain[i]!.previous).toBe(chain[i - 1]!.to);
  });

  it('keeps a number per ticket: another ticket of the same order starts at 1', async () => {
    const both = await tickets.issueForOrder(
      ctx,
      create(gen.tickets.IssueTicketsForOrderRequestSchema, {
        orderId: randomUUID(),
        eventId: 1n,
        lines: [{ ticketTypeId: 2n, poolId: 3n, ticketTypeName: 'GA', quantity: 2, unitPrice: '49.50' }],
      }),
    );
    for (const ticket of both) expect((await outboxOrderings(ticket.id!)).map((row) => row.ordering.sequence)).toEqual([1]);
  });
});
