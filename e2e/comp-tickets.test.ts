/**
 * POST /comp_tickets over HTTP against the running stack: every error row
 * of the spec, the scope, test-key dry runs, a batch larger than the pool
 * (the first guests get tickets, the rest `failed`), stock accounting,
 * the tickets as GET /tickets/{id} and the attendee list show them,
 * ticket.issued (and the stock crossings) on Kafka, the guest emails
 * queued and sent, and retries that issue once (D55-D61).
 */
import { createHash } from 'node:crypto';
import { createPool, keysEverywhere, randomBase62, redisFromEnv } from '@partner-api/shared';
import { api as callApi, env, type ErrorBody } from './support/api';
import { EventCollector } from './support/events';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';

interface Ticket {
  object: string;
  id: number;
  barcode: string;
  order_id: string | null;
  event_id: number;
  ticket_type_id: number;
  pool_id: number;
  ticket_type_name: string;
  attendee: { first_name: string | null; last_name: string | null; email: string | null };
  price: string;
  status: string;
  comp: boolean;
}
interface Batch {
  object: string;
  livemode: boolean;
  dry_run: boolean;
  issued: number;
  failed: Array<{ email: string; reason: string }>;
  tickets: Ticket[];
}
interface Staged {
  slug: string;
  eventId: number;
  typeId: number;
  poolId: number;
}

let inventory: InventoryClient;
let org: { id: number; key: string };
let testKey: string;
let events: EventCollector;
const tickets = createPool({ url: env('DATABASE_URL'), schema: 'tickets', max: 2 });

const api: typeof callApi = (path, options = {}) => callApi(path, { ...options, key: options.key ?? org.key });
const errorOf = (body: unknown) => (body as ErrorBody).error;
const guests = (n: number, prefix = 'guest') => Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.com`, name: `Guest Number${i}` }));

const comp = (body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  api<Batch>('/comp_tickets', {
    method: 'POST',
    body,
    key: options.key,
    headers: options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : undefined,
  });

const keyWith = (scopes: string[], mode: 'live' | 'test' = 'live') => issueKey(org.id, scopes, mode);

/** An event of the suite's organisation with one pool of `capacity` and a GA type on it. */
async function stage(capacity: number, options: { publish?: boolean } = {}): Promise<Staged> {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('comp');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Comp Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: BigInt(capacity) } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  if (options.publish !== false) await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: Number(event.id), typeId: Number(type.id), poolId: Number(pool.id) };
}

async function available(slug: string): Promise<number | null> {
  const response = await api<{ data: Array<{ id: number; available: number | null }> }>(`/events/${slug}/ticket_types`);
  expect(response.status).toBe(200);
  return response.body.data[0]!.available;
}

async function emailStates(ticketIds: number[]): Promise<string[]> {
  const { rows } = await tickets.query<{ state: string }>('SELECT state FROM comp_emails WHERE ticket_id = ANY($1::bigint[]) ORDER BY ticket_id', [ticketIds]);
  return rows.map((row) => row.state);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  inventory = inventoryClient();
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'attendees:read']);
  testKey = await keyWith(['orders:write', 'events:read'], 'test');
  events = new EventCollector(org.id);
  await events.start();
}, 30_000); // joining a Kafka consumer group can take seconds on a busy broker
afterAll(async () => {
  inventory.close();
  await events.stop();
  await tickets.end();
}, 30_000); // a Kafka consumer leaving its group can take seconds on a busy broker

describe('issuing comps', () => {
  let event: Staged;
  let batch: Batch;

  beforeAll(async () => {
    event = await stage(100);
    const response = await comp({
      event_id: event.slug,
      ticket_type_id: event.typeId,
      attendees: [
        { email: 'ann@example.com', name: 'Ann Lee' },
        { email: 'ludwig@example.com', name: 'Ludwig van Beethoven' },
        { email: 'cher@example.com', name: 'Cher' },
        { email: 'anon@example.com' },
        { email: 'ann@example.com', name: 'Lee, Ann' },
      ],
      note: 'Band guest list',
    });
    expect(response.status).toBe(201);
    batch = response.body;
  });

  it('answers 201 with one comp ticket per guest, in request order', () => {
    expect(batch).toMatchObject({ object: 'comp_ticket_batch', livemode: true, dry_run: false, issued: 5, failed: [] });
    expect(batch.tickets).toHaveLength(5);
    for (const ticket of batch.tickets) {
      expect(ticket).toMatchObject({
        object: 'ticket',
        order_id: null,
        price: '0.00',
        comp: true,
        status: 'valid',
        event_id: event.eventId,
        ticket_type_id: event.typeId,
        pool_id: event.poolId,
        ticket_type_name: 'GA',
      });
      expect(ticket.barcode).toMatch(/^[0-9A-Za-z]{22}$/);
    }
    expect(batch.tickets.map((ticket) => ticket.id)).toEqual([...batch.tickets.map((ticket) => ticket.id)].sort((a, b) => a - b));
  });

  it('splits names into first and last name (D57) and keeps duplicate emails as separate tickets (D58)', () => {
    expect(batch.tickets.map((ticket) => ticket.attendee)).toEqual([
      { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com' },
      { first_name: 'Ludwig', last_name: 'van Beethoven', email: 'ludwig@example.com' },
      { first_name: 'Cher', last_name: null, email: 'cher@example.com' },
      { first_name: null, last_name: null, email: 'anon@example.com' },
      { first_name: 'Ann', last_name: 'Lee', email: 'ann@example.com' },
    ]);
  });

  it('takes the tickets from the pool: available drops by the number issued', async () => {
    expect(await available(event.slug)).toBe(95);
  });

  it('the tickets read back through GET /tickets/{id} and the attendee list', async () => {
    const one = await api<Ticket>(`/tickets/${batch.tickets[1]!.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(batch.tickets[1]);
    const list = await api<{ data: Ticket[] }>(`/events/${event.slug}/attendees`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((ticket) => ticket.id)).toEqual(batch.tickets.map((ticket) => ticket.id));
    expect(list.body.data.every((ticket) => ticket.comp && ticket.order_id === null)).toBe(true);
  });

  it('writes one ticket.issued per ticket to Kafka (order_id null, price 0.00, comp true)', async () => {
    const ids = new Set(batch.tickets.map((ticket) => ticket.id));
    const issued = (seen = events.events) => seen.filter((e) => e.type === 'ticket.issued' && ids.has(e.data.object.id as number));
    await events.waitFor((seen) => issued(seen).length >= 5, 'ticket.issued for every comp');
    expect(issued()).toHaveLength(5);
    for (const e of issued()) {
      expect(e.livemode).toBe(true);
      expect(e.data.object).toMatchObject({ order_id: null, price: '0.00', comp: true, status: 'valid' });
    }
  });

  it('emails every guest: one email per ticket, queued with the ticket and sent by the loop', async () => {
    const ids = batch.tickets.map((ticket) => ticket.id);
    const states = await eventually(() => emailStates(ids), (value) => value.length === 5 && value.every((state) => state === 'sent'), 'guest emails sent');
    expect(states).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  });

  it('stores the note with the batch and nowhere a guest sees it', async () => {
    const { rows } = await tickets.query<{ note: string; state: string }>(
      'SELECT b.note, b.state FROM comp_batches b JOIN tickets t ON t.comp_batch_id = b.id WHERE t.id = $1',
      [batch.tickets[0]!.id],
    );
    expect(rows[0]).toEqual({ note: 'Band guest list', state: 'issued' });
    expect(JSON.stringify(batch)).not.toContain('Band guest list');
  });

  it('takes a multi-pool type from the pool named by pool_id, and comps a draft event and a hidden type', async () => {
    const ctx = operatorContext(org.id);
    const draft = await stage(10, { publish: false });
    const second = await inventory.upsertPool({ eventIdOrSlug: draft.slug, fields: { name: 'Balcony', capacity: 10n } }, ctx);
    const flexi = await inventory.upsertTicketType({ eventIdOrSlug: draft.slug, fields: { name: 'Flexi', price: '10.00', hidden: true, poolIds: [BigInt(draft.poolId), second.id] } }, ctx);
    const response = await comp({ event_id: draft.eventId, ticket_type_id: Number(flexi.id), pool_id: Number(second.id), attendees: guests(2) });
    expect(response.status).toBe(201);
    expect(response.body.tickets.map((ticket) => ticket.pool_id)).toEqual([Number(second.id), Number(second.id)]);
    const types = await api<{ data: Array<{ id: number; pool_id: number; available: number }> }>(`/events/${draft.slug}/ticket_types`);
    expect(types.body.data.find((type) => type.id === draft.typeId)!.available).toBe(10);
  });
});

describe('a batch larger than what is left (D56)', () => {
  let event: Staged;

  beforeAll(async () => {
    event = await stage(20);
  });

  it('issues to the first guests in request order and lists the rest in failed with exceeds_stock', async () => {
    const response = await comp({ event_id: event.eventId, ticket_type_id: event.typeId, attendees: guests(25, 'short') });
    expect(response.status).toBe(201);
    expect(response.body.issued).toBe(20);
    expect(response.body.tickets.map((ticket) => ticket.attendee.email)).toEqual(guests(20, 'short').map((guest) => guest.email));
    expect(response.body.failed).toEqual(guests(25, 'short').slice(20).map((guest) => ({ email: guest.email, reason: 'exceeds_stock' })));
    expect(await available(event.slug)).toBe(0);
  });

  it('fires ticket_type.low_inventory and event.sold_out for the crossings the batch caused', async () => {
    await events.waitFor(
      (seen) =>
        seen.some((e) => e.type === 'ticket_type.low_inventory' && e.data.object.id === event.typeId) &&
        seen.some((e) => e.type === 'event.sold_out' && e.data.object.id === event.eventId),
      'low-inventory and sold-out events',
    );
    const low = events.events.find((e) => e.type === 'ticket_type.low_inventory' && e.data.object.id === event.typeId)!;
    expect(low.data.threshold).toBe(5);
  });

  it('refuses a batch with 422 exceeds_availability when nothing is left, issuing nothing', async () => {
    const response = await comp({ event_id: event.eventId, ticket_type_id: event.typeId, attendees: guests(1, 'none-left') });
    expect(response.status).toBe(422);
    expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code: 'exceeds_availability', param: 'attendees' });
    const { rows } = await tickets.query("SELECT 1 FROM tickets WHERE event_id = $1 AND attendee_email = 'none-left0@example.com'", [event.eventId]);
    expect(rows).toHaveLength(0);
  });
});

describe('batches racing for the last tickets', () => {
  it('never issue more than the pool holds: 8 concurrent batches of 5 on 22 tickets issue 22', async () => {
    const event = await stage(22);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => comp({ event_id: event.eventId, ticket_type_id: event.typeId, attendees: guests(5, `race${i}-`) })),
    );
    const issued = responses.filter((response) => response.status === 201);
    expect(responses.every((response) => response.status === 201 || (response.status === 422 && errorOf(response.body).code === 'exceeds_availability'))).toBe(true);
    expect(issued.reduce((sum, response) => sum + response.body.issued, 0)).toBe(22);
    for (const response of issued) {
      expect(response.body.tickets).toHaveLength(response.body.issued);
      expect(response.body.issued + response.body.failed.length).toBe(5);
    }
    expect(await available(event.slug)).toBe(0);
    const { rows } = await tickets.query<{ n: string }>('SELECT count(*) AS n FROM tickets WHERE event_id = $1', [event.eventId]);
    expect(Number(rows[0]!.n)).toBe(22);
  });
});

describe('errors', () => {
  let event: Staged;
  let multiPoolTypeId: number;
  const body = () => ({ event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(1) });

  beforeAll(async () => {
    event = await stage(10);
    const ctx = operatorContext(org.id);
    const other = await inventory.upsertPool({ eventIdOrSlug: event.slug, fields: { name: 'Other', capacity: 10n } }, ctx);
    multiPoolTypeId = Number((await inventory.upsertTicketType({ eventIdOrSlug: event.slug, fields: { name: 'Flexi', price: '20.00', poolIds: [BigInt(event.poolId), other.id] } }, ctx)).id);
  });

  it.each([
    ['no event_id', 'parameter_missing', 'event_id', (b: Record<string, unknown>) => ({ ...b, event_id: undefined })],
    ['no ticket_type_id', 'parameter_missing', 'ticket_type_id', (b: Record<string, unknown>) => ({ ...b, ticket_type_id: undefined })],
    ['no attendees', 'parameter_invalid', 'attendees', (b: Record<string, unknown>) => ({ ...b, attendees: undefined })],
    ['empty attendees', 'parameter_invalid', 'attendees', (b: Record<string, unknown>) => ({ ...b, attendees: [] })],
    ['51 attendees', 'parameter_invalid', 'attendees', (b: Record<string, unknown>) => ({ ...b, attendees: guests(51) })],
    ['attendees not a list', 'parameter_invalid', 'attendees', (b: Record<string, unknown>) => ({ ...b, attendees: 'ann@example.com' })],
    ['an attendee without email', 'parameter_invalid', 'attendees[1].email', (b: Record<string, unknown>) => ({ ...b, attendees: [{ email: 'a@example.com' }, { name: 'No Mail' }] })],
    ['an attendee with a bad email', 'parameter_invalid', 'attendees[0].email', (b: Record<string, unknown>) => ({ ...b, attendees: [{ email: 'not-an-email', name: 'X' }] })],
    ['a non-integer ticket_type_id', 'parameter_invalid', 'ticket_type_id', (b: Record<string, unknown>) => ({ ...b, ticket_type_id: '7' })],
    ['a note over 500 characters', 'parameter_invalid', 'note', (b: Record<string, unknown>) => ({ ...b, note: 'x'.repeat(501) })],
  ] as const)('%s → 400 %s (%s)', async (_, code, param, change) => {
    const response = await comp(change(body()));
    expect(response.status).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('a multi-pool type without pool_id → 400 parameter_missing (pool_id); a pool the type does not use → 400 parameter_invalid', async () => {
    const missing = await comp({ ...body(), ticket_type_id: multiPoolTypeId });
    expect(missing.status).toBe(400);
    expect(errorOf(missing.body)).toMatchObject({ code: 'parameter_missing', param: 'pool_id' });
    const wrong = await comp({ ...body(), pool_id: 999_999_999 });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong.body)).toMatchObject({ code: 'parameter_invalid', param: 'pool_id' });
  });

  it('an unknown event, or another organisation\'s → 404 resource_missing (event_id)', async () => {
    const unknown = await comp({ ...body(), event_id: uniqueSlug('nope') });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown.body)).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'event_id' });
    const demo = await comp({ ...body(), event_id: 'midnight-oil-reunion', ticket_type_id: 1 });
    expect(demo.status).toBe(404);
    expect(errorOf(demo.body)).toMatchObject({ code: 'resource_missing', param: 'event_id' });
  });

  it("a ticket type that is not the event's → 404 resource_missing (ticket_type_id)", async () => {
    const elsewhere = await stage(5);
    const response = await comp({ ...body(), ticket_type_id: elsewhere.typeId });
    expect(response.status).toBe(404);
    expect(errorOf(response.body)).toMatchObject({ code: 'resource_missing', param: 'ticket_type_id' });
  });

  it('a cancelled event → 422 event_not_on_sale (D55)', async () => {
    const cancelled = await stage(5);
    await inventory.changeEventStatus({ idOrSlug: cancelled.slug, action: 'cancel' }, operatorContext(org.id));
    const response = await comp({ event_id: cancelled.slug, ticket_type_id: cancelled.typeId, attendees: guests(1) });
    expect(response.status).toBe(422);
    expect(errorOf(response.body)).toMatchObject({ code: 'event_not_on_sale', param: 'event_id' });
  });

  it('a key without orders:write → 403 insufficient_scope', async () => {
    const reader = await keyWith(['orders:read', 'events:read', 'attendees:read']);
    const response = await comp(body(), { key: reader });
    expect(response.status).toBe(403);
    expect(errorOf(response.body)).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });

  it('no error took any stock', async () => {
    expect(await available(event.slug)).toBe(10);
  });
});

describe('test keys (D59)', () => {
  it('validate and count in full, and issue, take and email nothing', async () => {
    const event = await stage(3);
    const before = events.events.length;
    const response = await comp({ event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(4, 'dry') }, { key: testKey });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      object: 'comp_ticket_batch',
      livemode: false,
      dry_run: true,
      issued: 3,
      failed: [{ email: 'dry3@example.com', reason: 'exceeds_stock' }],
      tickets: [],
    });
    expect(await available(event.slug)).toBe(3);
    const { rows } = await tickets.query('SELECT 1 FROM tickets WHERE event_id = $1', [event.eventId]);
    expect(rows).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(events.events.slice(before).filter((e) => e.type === 'ticket.issued' && e.data.object.event_id === event.eventId)).toEqual([]);
  });

  it('answer the same errors as live keys', async () => {
    const event = await stage(1);
    const invalid = await comp({ event_id: event.slug, ticket_type_id: event.typeId, attendees: [] }, { key: testKey });
    expect(invalid.status).toBe(400);
    expect(errorOf(invalid.body)).toMatchObject({ code: 'parameter_invalid', param: 'attendees' });
    expect((await comp({ event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(1) })).status).toBe(201);
    const none = await comp({ event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(1) }, { key: testKey });
    expect(none.status).toBe(422);
    expect(errorOf(none.body)).toMatchObject({ code: 'exceeds_availability' });
  });
});

describe('retries', () => {
  it('the same Idempotency-Key replays the first answer and takes the stock once', async () => {
    const event = await stage(10);
    const request = { event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(3, 'idem') };
    const key = `comp-${randomBase62(12)}`;
    const first = await comp(request, { idempotencyKey: key });
    expect(first.status).toBe(201);
    const again = await comp(request, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await available(event.slug)).toBe(7);
  });

  it('a retry whose stored response is gone (a 5xx is not kept) finds the batch it issued instead of issuing again', async () => {
    const event = await stage(10);
    const request = { event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(2, 'lost') };
    const key = `comp-${randomBase62(12)}`;
    const first = await comp(request, { idempotencyKey: key });
    expect(first.status).toBe(201);
    // Forget the gateway's idempotency record, as if the first answer had been a 5xx.
    const redis = redisFromEnv();
    try {
      const hash = createHash('sha256').update(key).digest('hex');
      const stored = await keysEverywhere(redis, `gw:idem:*:${hash}`);
      expect(stored).toHaveLength(1);
      await redis.del(stored[0]!);
    } finally {
      await redis.quit();
    }
    const again = await comp(request, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.tickets.map((ticket) => ticket.id)).toEqual(first.body.tickets.map((ticket) => ticket.id));
    expect(await available(event.slug)).toBe(8);
  });

  it('without an Idempotency-Key each call is its own batch', async () => {
    const event = await stage(10);
    const request = { event_id: event.slug, ticket_type_id: event.typeId, attendees: guests(1, 'twice') };
    expect((await comp(request)).status).toBe(201);
    expect((await comp(request)).status).toBe(201);
    expect(await available(event.slug)).toBe(8);
  });
});
