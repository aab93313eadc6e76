/**
 * At the door: GET /events/{id}/attendees (filters, pages, scoping) and
 * POST /events/{id}/check_ins (first and repeat scans, every error row,
 * test-key dry runs, ticket.checked_in exactly once, concurrent scans).
 * Tickets come from real purchases: a checkout session paid on the hosted
 * checkout. Refunds and voids have no operation yet, so those states are
 * written into the tickets schema as those operations would leave them.
 */
import { createPool } from '@partner-api/shared';
import { api as callApi, env, type ErrorBody } from './support/api';
import { EventCollector } from './support/events';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';

interface Ticket {
  object: string;
  id: number;
  barcode: string;
  order_id: string | null;
  event_id: number;
  status: string;
  checked_in_at: string | null;
  updated_at: string;
  attendee: Record<string, string | null>;
}
interface CheckIn {
  object: string;
  result: string;
  livemode: boolean;
  dry_run: boolean;
  ticket: Ticket;
}
interface List<T> {
  object: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
interface Staged {
  slug: string;
  eventId: number;
  typeId: number;
}

const ALL_SCOPES = ['orders:write', 'orders:read', 'events:read', 'attendees:read', 'check_in:write'];

let inventory: InventoryClient;
let org: { id: number; key: string };
let testKey: string;
let events: EventCollector;
const db = createPool({ url: env('DATABASE_URL'), schema: 'tickets', max: 2 });

const api: typeof callApi = (path, options = {}) => callApi(path, { ...options, key: options.key ?? org.key });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const errorOf = (body: unknown) => (body as ErrorBody).error;

const keyWith = (scopes: string[], mode: 'live' | 'test' = 'live') => issueKey(org.id, scopes, mode);

/** A published event of the suite's organisation with one ticket type. */
async function stage(): Promise<Staged> {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('door');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Door Test', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 200n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 20, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: Number(event.id), typeId: Number(type.id) };
}

/** Buys `quantity` tickets through a checkout session paid on the hosted checkout; the order's tickets. */
async function buy(event: Staged, quantity: number, email = 'door@example.com'): Promise<Ticket[]> {
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    body: { event_id: event.slug, items: [{ ticket_type_id: event.typeId, quantity }] },
  });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email, first_name: 'Dee', last_name: 'Oor', ...GOOD_CARD })).status).toBe(303);
  return (await api<{ tickets: Ticket[] }>(`/orders/${session.body.id}`)).body.tickets;
}

/** What a refund or a void (operations not built yet) leave behind. */
const setStatus = (ticketId: number, status: 'refunded' | 'void') =>
  db.query('UPDATE tickets SET status = $2, updated_at = now() WHERE id = $1', [ticketId, status]);

const checkIn = (eventPathId: string | number, body: unknown, key?: string) =>
  api<CheckIn>(`/events/${eventPathId}/check_ins`, { method: 'POST', body, key });

async function attendees(eventPathId: string | number, query = '', key?: string): Promise<List<Ticket>> {
  const response = await api<List<Ticket>>(`/events/${eventPathId}/attendees${query}`, { key });
  expect(response.status).toBe(200);
  return response.body;
}

/** Every page of a listing, following next_cursor. */
async function walk(eventPathId: string | number, filters: string, limit: number): Promise<{ tickets: Ticket[]; pages: number }> {
  const tickets: Ticket[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: List<Ticket> = await attendees(eventPathId, `?limit=${limit}${filters}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    pages += 1;
    expect(page.data.length).toBeLessThanOrEqual(limit);
    expect(page.has_more).toBe(page.next_cursor !== null);
    tickets.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return { tickets, pages };
}

/** ticket.checked_in rows the tickets service wrote for one ticket (the outbox the relay publishes from). */
async function checkedInOutboxRows(ticketId: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE event_type = 'ticket.checked_in' AND partition_key = $1", [`ticket:${ticketId}`]);
  return Number(rows[0]!.n);
}

const checkedInEvents = (ticketId: number) => events.events.filter((event) => event.type === 'ticket.checked_in' && event.data.object.id === ticketId);

beforeAll(async () => {
  inventory = inventoryClient();
  org = await newOrganisation(ALL_SCOPES);
  testKey = await keyWith(['attendees:read', 'check_in:write'], 'test');
  events = new EventCollector(org.id);
  await events.start();
}, 30_000); // joining a Kafka consumer group can take seconds on a busy broker
afterAll(async () => {
  inventory.close();
  await events.stop();
  await db.end();
}, 30_000); // a Kafka consumer leaving its group can take seconds on a busy broker

describe('GET /events/{id}/attendees', () => {
  let event: Staged;
  let other: Staged;
  let tickets: Ticket[];

  beforeAll(async () => {
    event = await stage();
    other = await stage();
    tickets = [...(await buy(event, 3, 'a@example.com')), ...(await buy(event, 2, 'b@example.com')), ...(await buy(event, 2, 'c@example.com'))];
    await buy(other, 1);
    await setStatus(tickets[1]!.id, 'void');
    await setStatus(tickets[2]!.id, 'refunded');
  });

  it('lists every ticket of the event by id, by event id or slug: void left out, refunded included', async () => {
    const bySlug = await attendees(event.slug, '?limit=100');
    const byId = await attendees(event.eventId, '?limit=100');
    expect(byId.data).toEqual(bySlug.data);
    expect(bySlug).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const expected = tickets.filter((_, index) => index !== 1).map((ticket) => ticket.id).sort((a, b) => a - b);
    expect(bySlug.data.map((ticket) => ticket.id)).toEqual(expected);
    expect(bySlug.data.find((ticket) => ticket.id === tickets[2]!.id)!.status).toBe('refunded');
    expect(bySlug.data.every((ticket) => ticket.object === 'ticket' && ticket.event_id === event.eventId)).toBe(true);
    // The same ticket object as GET /tickets/{id}.
    const single = await api<Ticket>(`/tickets/${tickets[0]!.id}`);
    expect(bySlug.data.find((ticket) => ticket.id === tickets[0]!.id)).toEqual(single.body);
  });

  it('pages across pages with sealed cursors: every ticket once, in id order', async () => {
    const all = (await attendees(event.slug, '?limit=100')).data;
    const { tickets: walked, pages } = await walk(event.slug, '', 2);
    expect(pages).toBe(3);
    expect(walked).toEqual(all);
    const { tickets: single } = await walk(event.slug, '', 1);
    expect(single.map((ticket) => ticket.id)).toEqual(all.map((ticket) => ticket.id));
  });

  it('filters by checked_in: true only checked-in tickets, false the rest (refunded included)', async () => {
    const scanned = tickets[4]!;
    expect((await checkIn(event.slug, { ticket_id: scanned.id })).body.result).toBe('checked_in');
    const yes = await attendees(event.slug, '?checked_in=true');
    expect(yes.data.map((ticket) => ticket.id)).toEqual([scanned.id]);
    expect(yes.data[0]!.status).toBe('checked_in');
    const no = await attendees(event.slug, '?checked_in=false&limit=100');
    const notScanned = [0, 2, 3, 5, 6].map((index) => tickets[index]!);
    expect(no.data.map((ticket) => ticket.id)).toEqual(notScanned.map((ticket) => ticket.id).sort((a, b) => a - b));
    expect(no.data.find((ticket) => ticket.id === tickets[2]!.id)!.status).toBe('refunded');
    expect(no.data.filter((ticket) => ticket.status === 'valid')).toHaveLength(4);
    const { tickets: pagedNo } = await walk(event.slug, '&checked_in=false', 2);
    expect(pagedNo).toEqual(no.data);
  });

  it('filters by updated_since, inclusively, and pages the filtered list', async () => {
    // Later than anything else in the listing, so the filter picks out exactly these tickets.
    const at = '2031-05-01T10:00:00Z';
    await db.query('UPDATE tickets SET updated_at = $2 WHERE id = ANY($1::bigint[])', [[tickets[3]!.id, tickets[5]!.id, tickets[6]!.id], at]);
    const since = await attendees(event.slug, `?updated_since=${encodeURIComponent(at)}`);
    expect(since.data.map((ticket) => ticket.id)).toEqual([tickets[3]!.id, tickets[5]!.id, tickets[6]!.id].sort((a, b) => a - b));
    expect(since.data.every((ticket) => ticket.updated_at === at)).toBe(true);
    expect((await attendees(event.slug, '?updated_since=2031-05-01T10:00:01Z')).data).toEqual([]);
    expect((await attendees(event.slug, `?updated_since=${encodeURIComponent('2031-05-01T20:00:00+10:00')}`)).data).toHaveLength(3);
    expect((await attendees(event.slug, '?updated_since=2031-05-01')).data).toHaveLength(3);
    const { tickets: paged, pages } = await walk(event.slug, `&updated_since=${encodeURIComponent(at)}&checked_in=false`, 2);
    expect(pages).toBe(2);
    expect(paged).toEqual(since.data);
  });

  it('lists nothing for an event without tickets', async () => {
    const empty = await stage();
    expect(await attendees(empty.slug)).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it.each([
    ['checked_in=yes', 'checked_in'],
    ['checked_in=1', 'checked_in'],
    ['checked_in=TRUE', 'checked_in'],
    ['checked_in=', 'checked_in'],
    ['checked_in=true&checked_in=false', 'checked_in'],
    ['updated_since=yesterday', 'updated_since'],
    ['updated_since=2026-13-01', 'updated_since'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['cursor=forged', 'cursor'],
  ])('refuses %s with 400 parameter_invalid', async (query, param) => {
    const response = await api(`/events/${event.slug}/attendees?${query}`);
    expect(response.status).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param });
  });

  it('refuses a cursor from another filter or another event', async () => {
    const page = await attendees(event.slug, '?limit=1');
    for (const path of [`/events/${event.slug}/attendees?limit=1&checked_in=false`, `/events/${other.slug}/attendees?limit=1`]) {
      const response = await api(`${path}&cursor=${encodeURIComponent(page.next_cursor!)}`);
      expect(response.status).toBe(400);
      expect(errorOf(response.body)).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
    }
  });

  it("answers 404 resource_missing for an unknown event and for another organisation's", async () => {
    const stranger = await newOrganisation(['attendees:read']);
    for (const [path, key] of [
      [`/events/${uniqueSlug('nope')}/attendees`, org.key],
      ['/events/999999999/attendees', org.key],
      [`/events/${event.slug}/attendees`, stranger.key],
      [`/events/${event.eventId}/attendees`, stranger.key],
    ] as const) {
      const response = await api(path, { key });
      expect(response.status).toBe(404);
      expect(errorOf(response.body)).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
    }
  });

  it('refuses a key without attendees:read: 403 insufficient_scope', async () => {
    const response = await api(`/events/${event.slug}/attendees`, { key: await keyWith(['orders:read', 'events:read', 'check_in:write']) });
    expect(response.status).toBe(403);
    expect(errorOf(response.body)).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });

  it('serves test keys the same real data', async () => {
    expect((await attendees(event.slug, '?limit=100', testKey)).data).toEqual((await attendees(event.slug, '?limit=100')).data);
  });
});

describe('POST /events/{id}/check_ins', () => {
  let event: Staged;
  let other: Staged;
  let tickets: Ticket[];
  let elsewhere: Ticket;

  beforeAll(async () => {
    event = await stage();
    other = await stage();
    tickets = await buy(event, 12, 'scan@example.com');
    elsewhere = (await buy(other, 1))[0]!;
  });

  it('checks a valid ticket in on the first scan, fires ticket.checked_in once, and answers a repeat scan with the original time', async () => {
    const ticket = tickets[0]!;
    const first = await checkIn(event.slug, { code: ticket.barcode });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'check_in', result: 'checked_in', livemode: true, dry_run: false });
    expect(first.body.ticket).toMatchObject({ object: 'ticket', id: ticket.id, barcode: ticket.barcode, status: 'checked_in' });
    const at = first.body.ticket.checked_in_at!;
    expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
    expect((await api<Ticket>(`/tickets/${ticket.id}`)).body).toEqual(first.body.ticket);

    await sleep(1_100); // a later scan happens in a later second: the time shown must still be the first one
    for (const [path, body] of [[event.slug, { code: ticket.barcode }], [event.eventId, { ticket_id: ticket.id }]] as const) {
      const repeat = await checkIn(path, body);
      expect(repeat.status).toBe(200);
      expect(repeat.body).toMatchObject({ object: 'check_in', result: 'already_checked_in', livemode: true, dry_run: false });
      expect(repeat.body.ticket).toEqual(first.body.ticket);
    }

    await events.waitFor(() => checkedInEvents(ticket.id).length > 0, 'ticket.checked_in');
    const [published] = checkedInEvents(ticket.id);
    expect(published).toMatchObject({ type: 'ticket.checked_in', livemode: true, organisation_id: org.id });
    expect(published!.data.object).toEqual(first.body.ticket);
    await sleep(1_500);
    expect(checkedInEvents(ticket.id)).toHaveLength(1);
    expect(await checkedInOutboxRows(ticket.id)).toBe(1);
  });

  it('checks in by ticket_id under the numeric event id, and by code with the white space a scanner adds', async () => {
    const byId = await checkIn(event.eventId, { ticket_id: tickets[1]!.id });
    expect(byId.body).toMatchObject({ result: 'checked_in', ticket: { id: tickets[1]!.id, status: 'checked_in' } });
    const padded = await checkIn(event.slug, { code: ` ${tickets[2]!.barcode}\r\n` });
    expect(padded.body).toMatchObject({ result: 'checked_in', ticket: { id: tickets[2]!.id } });
  });

  it('takes both fields when they name the same ticket, and refuses them with 400 parameter_invalid when they do not', async () => {
    const both = await checkIn(event.slug, { code: tickets[3]!.barcode, ticket_id: tickets[3]!.id });
    expect(both.body).toMatchObject({ result: 'checked_in', ticket: { id: tickets[3]!.id } });
    const mismatch = await checkIn(event.slug, { code: tickets[4]!.barcode, ticket_id: tickets[5]!.id });
    expect(mismatch.status).toBe(400);
    expect(errorOf(mismatch.body)).toMatchObject({ code: 'parameter_invalid', param: 'code' });
    expect((await api<Ticket>(`/tickets/${tickets[4]!.id}`)).body.status).toBe('valid');
    expect((await api<Ticket>(`/tickets/${tickets[5]!.id}`)).body.status).toBe('valid');
  });

  it('replays an Idempotency-Key retry with the first answer', async () => {
    const headers = { 'Idempotency-Key': `door-${tickets[6]!.id}` };
    const first = await api<CheckIn>(`/events/${event.slug}/check_ins`, { method: 'POST', body: { ticket_id: tickets[6]!.id }, headers });
    const retry = await api<CheckIn>(`/events/${event.slug}/check_ins`, { method: 'POST', body: { ticket_id: tickets[6]!.id }, headers });
    expect(first.body.result).toBe('checked_in');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  describe('errors', () => {
    it.each([
      [{}, 'parameter_missing', 'code'],
      [{ code: null, ticket_id: null }, 'parameter_missing', 'code'],
      [{ code: '   ' }, 'parameter_invalid', 'code'],
      [{ code: '' }, 'parameter_invalid', 'code'],
      [{ code: 'x'.repeat(257) }, 'parameter_invalid', 'code'],
      [{ code: 12345 }, 'parameter_invalid', 'code'],
      [{ ticket_id: '12' }, 'parameter_invalid', 'ticket_id'],
      [{ ticket_id: 0 }, 'parameter_invalid', 'ticket_id'],
      [{ ticket_id: 2.5 }, 'parameter_invalid', 'ticket_id'],
    ])('answers %p with 400 %s', async (body, code, param) => {
      const response = await checkIn(event.slug, body);
      expect(response.status).toBe(400);
      expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code, param });
    });

    it("answers an unknown code or ticket, and another organisation's ticket, with 404 resource_missing", async () => {
      const stranger = await newOrganisation(['check_in:write', 'orders:write', 'events:read']);
      const strangerInventoryCtx = operatorContext(stranger.id);
      const strangeSlug = uniqueSlug('stranger');
      await inventory.upsertEvent({ fields: { slug: strangeSlug, title: 'Elsewhere', startsAt: new Date(Date.now() + 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, strangerInventoryCtx);
      for (const [path, body, param, key] of [
        [event.slug, { code: 'AAAAAAAAAAAAAAAAAAAAAA' }, 'code', org.key],
        [event.slug, { ticket_id: 999_999_999 }, 'ticket_id', org.key],
        // The stranger's own event, our ticket: the ticket is not in their organisation.
        [strangeSlug, { code: tickets[7]!.barcode }, 'code', stranger.key],
        [strangeSlug, { ticket_id: tickets[7]!.id }, 'ticket_id', stranger.key],
      ] as const) {
        const response = await checkIn(path, body, key);
        expect(response.status).toBe(404);
        expect(errorOf(response.body)).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param });
      }
      expect((await api<Ticket>(`/tickets/${tickets[7]!.id}`)).body.status).toBe('valid');
    });

    it("answers an unknown event and another organisation's event with 404 resource_missing", async () => {
      const stranger = await newOrganisation(['check_in:write']);
      for (const [path, key] of [[uniqueSlug('nope'), org.key], ['999999999', org.key], [event.slug, stranger.key], [String(event.eventId), stranger.key]] as const) {
        const response = await checkIn(path, { code: tickets[7]!.barcode }, key);
        expect(response.status).toBe(404);
        expect(errorOf(response.body)).toMatchObject({ code: 'resource_missing' });
      }
    });

    it('answers a ticket of another event with 409 ticket_wrong_event', async () => {
      for (const body of [{ code: elsewhere.barcode }, { ticket_id: elsewhere.id }]) {
        const response = await checkIn(event.slug, body);
        expect(response.status).toBe(409);
        expect(errorOf(response.body)).toMatchObject({ type: 'conflict_error', code: 'ticket_wrong_event' });
      }
      expect((await api<Ticket>(`/tickets/${elsewhere.id}`)).body.status).toBe('valid');
    });

    it('answers a refunded or voided ticket with 422 ticket_void and leaves it as it was', async () => {
      await setStatus(tickets[8]!.id, 'refunded');
      await setStatus(tickets[9]!.id, 'void');
      for (const ticket of [tickets[8]!, tickets[9]!]) {
        const response = await checkIn(event.slug, { code: ticket.barcode });
        expect(response.status).toBe(422);
        expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code: 'ticket_void' });
      }
      expect((await api<Ticket>(`/tickets/${tickets[8]!.id}`)).body).toMatchObject({ status: 'refunded', checked_in_at: null });
      expect(await checkedInOutboxRows(tickets[8]!.id)).toBe(0);
    });

    it('refuses a key without check_in:write: 403 insufficient_scope', async () => {
      const response = await checkIn(event.slug, { code: tickets[10]!.barcode }, await keyWith(['attendees:read', 'orders:read', 'orders:write']));
      expect(response.status).toBe(403);
      expect(errorOf(response.body)).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    });
  });

  describe('with a test key', () => {
    it('classifies a first scan the same way but records nothing: dry_run, livemode false, no event', async () => {
      const ticket = tickets[10]!;
      const before = await attendees(event.slug, '?limit=100');
      const dry = await checkIn(event.slug, { code: ticket.barcode }, testKey);
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ object: 'check_in', result: 'checked_in', livemode: false, dry_run: true });
      expect(dry.body.ticket).toMatchObject({ id: ticket.id, status: 'checked_in' });
      expect(dry.body.ticket.checked_in_at).not.toBeNull();
      // A second dry run is still a "first" scan: nothing was recorded.
      expect((await checkIn(event.slug, { ticket_id: ticket.id }, testKey)).body.result).toBe('checked_in');
      expect(await attendees(event.slug, '?limit=100')).toEqual(before);
      expect((await api<Ticket>(`/tickets/${ticket.id}`)).body).toMatchObject({ status: 'valid', checked_in_at: null });
      expect(await checkedInOutboxRows(ticket.id)).toBe(0);

      // The live scan then is the first; its event is the only one for the ticket (one partition per ticket keeps them in order).
      expect((await checkIn(event.slug, { code: ticket.barcode })).body.result).toBe('checked_in');
      await events.waitFor(() => checkedInEvents(ticket.id).length > 0, 'ticket.checked_in after the dry runs');
      expect(checkedInEvents(ticket.id).map((e) => e.livemode)).toEqual([true]);
    });

    it('answers a repeat scan already_checked_in and refuses the same errors', async () => {
      const repeat = await checkIn(event.slug, { code: tickets[0]!.barcode }, testKey);
      expect(repeat.body).toMatchObject({ result: 'already_checked_in', dry_run: true, livemode: false });
      expect(repeat.body.ticket).toEqual((await api<Ticket>(`/tickets/${tickets[0]!.id}`)).body);
      for (const [path, body, status, code] of [
        [event.slug, {}, 400, 'parameter_missing'],
        [event.slug, { code: 'AAAAAAAAAAAAAAAAAAAAAA' }, 404, 'resource_missing'],
        [uniqueSlug('nope'), { code: tickets[11]!.barcode }, 404, 'resource_missing'],
        [event.slug, { code: elsewhere.barcode }, 409, 'ticket_wrong_event'],
        [event.slug, { code: tickets[8]!.barcode }, 422, 'ticket_void'],
      ] as const) {
        const response = await checkIn(path, body, testKey);
        expect(response.status).toBe(status);
        expect(errorOf(response.body).code).toBe(code);
      }
    });
  });

  it('gives exactly one checked_in to 20 concurrent scans of one ticket, and one ticket.checked_in', async () => {
    const ticket = tickets[11]!;
    const scans = await Promise.all(Array.from({ length: 20 }, (_, index) => checkIn(event.slug, index % 2 ? { code: ticket.barcode } : { ticket_id: ticket.id })));
    expect(scans.map((scan) => scan.status)).toEqual(Array(20).fill(200));
    const results = scans.map((scan) => scan.body.result);
    expect(results.filter((result) => result === 'checked_in')).toHaveLength(1);
    expect(results.filter((result) => result === 'already_checked_in')).toHaveLength(19);
    expect(new Set(scans.map((scan) => scan.body.ticket.checked_in_at)).size).toBe(1);
    expect(await checkedInOutboxRows(ticket.id)).toBe(1);
    await events.waitFor(() => checkedInEvents(ticket.id).length > 0, 'ticket.checked_in of the contested ticket');
    await sleep(1_500);
    expect(checkedInEvents(ticket.id)).toHaveLength(1);
  });
});
