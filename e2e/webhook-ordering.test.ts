/**
 * Standard Webhooks headers and per-object ordering against the running
 * stack (D260–D269). One comp ticket is transferred twice and checked in:
 * its four deliveries each verify with the official `standardwebhooks`
 * library under the secret the API showed, and their `ordering.sequence`
 * counts 1–4 under `ticket:<id>` with the ticket's `updated_at`, whatever
 * order they arrive in. After `partnerctl webhook rotate-secret`, a
 * delivery verifies with the new and with the old secret. An order paid and
 * then refunded in two steps counts 1, 2, 3 under `order:<id>`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { api as callApi } from './support/api';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { partnerAccepts } from './support/webhooks';
import { Receiver, type ReceivedRequest } from '../services/webhooks/test/support';

interface Ticket {
  id: number;
  barcode: string;
  updated_at: string;
}

interface Body {
  type: string;
  data: { object: { object: string; id: number | string; updated_at: string } };
  ordering: { key: string; sequence: number; updated_at: string };
}

const ROOT = path.resolve(__dirname, '..');
let org: { id: number; key: string };
let inventory: InventoryClient;
let receiver: Receiver;
let endpoint: { id: number; secret: string };
let slug: string;
let typeId: number;

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });

async function partnerctl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['services/cli/dist/main.js', ...args], { cwd: ROOT, env: process.env });
  return stdout;
}

async function compTicket(email: string): Promise<Ticket> {
  const response = await api<{ tickets: Ticket[] }>('/comp_tickets', { method: 'POST', body: { event_id: slug, ticket_type_id: typeId, attendees: [{ email, name: 'Ann Lee' }] } });
  expect(response.status).toBe(201);
  return response.body.tickets[0]!;
}

/** The bodies delivered about one object once `count` have arrived, by sequence. */
async function deliveriesAbout(object: string, id: number | string, count: number): Promise<Array<{ request: ReceivedRequest; body: Body }>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const about = receiver.requests
      .map((request) => ({ request, body: JSON.parse(request.body) as Body }))
      .filter(({ body }) => body.data.object.object === object && body.data.object.id === id);
    const unique = [...new Map(about.map((entry) => [entry.request.headers['webhook-id'], entry])).values()];
    if (unique.length >= count) return unique.sort((a, b) => a.body.ordering.sequence - b.body.ordering.sequence);
    if (Date.now() > deadline) throw new Error(`only ${unique.length} of ${count} deliveries about ${object} ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const standardHeaders = (request: ReceivedRequest) => ({
  'webhook-id': String(request.headers['webhook-id']),
  'webhook-timestamp': String(request.headers['webhook-timestamp']),
  'webhook-signature': String(request.headers['webhook-signature']),
});

beforeAll(async () => {
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'attendees:read', 'check_in:write', 'webhooks:manage']);
  inventory = inventoryClient();
  receiver = await new Receiver().start();
  const created = await api<{ id: number; secret: string }>('/webhook_endpoints', { method: 'POST', body: { url: `${receiver.url}/ordering`, event_types: ['*'] } });
  expect(created.status).toBe(201);
  endpoint = created.body;

  const ctx = operatorContext(org.id);
  slug = uniqueSlug('ordering');
  await inventory.upsertEvent({ fields: { slug, title: 'Ordering Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 50n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  typeId = Number(type.id);
}, 30_000);

afterAll(async () => {
  inventory?.close();
  await receiver?.stop();
});

describe('one ticket through issue, two transfers and a check-in', () => {
  it('arrives as four deliveries the official library verifies, numbered 1 to 4 under ticket:<id>', async () => {
    const ticket = await compTicket('ann@example.com');
    await partnerctl('ticket', 'transfer', String(ticket.id), '--org', String(org.id), '--email', 'ben@example.com');
    await partnerctl('ticket', 'transfer', String(ticket.id), '--org', String(org.id), '--email', 'cleo@example.com');
    const moved = await api<Ticket>(`/tickets/${ticket.id}`);
    const scanned = await api<{ result: string }>(`/events/${slug}/check_ins`, { method: 'POST', body: { code: moved.body.barcode } });
    expect(scanned.body.result).toBe('checked_in');

    const deliveries = await deliveriesAbout('ticket', ticket.id, 4);
    expect(deliveries.map(({ body }) => [body.type, body.ordering.sequence])).toEqual([
      ['ticket.issued', 1],
      ['ticket.transferred', 2],
      ['ticket.transferred', 3],
      ['ticket.checked_in', 4],
    ]);
    for (const { request, body } of deliveries) {
      expect(body.ordering).toEqual({ key: `ticket:${ticket.id}`, sequence: body.ordering.sequence, updated_at: body.data.object.updated_at });
      expect(new Webhook(endpoint.secret).verify(request.body, standardHeaders(request))).toEqual(JSON.parse(request.body));
      expect(partnerAccepts(String(request.headers['service-signature']), request.body, endpoint.secret)).toBe(true);
      expect(request.headers['webhook-id']).toBe(request.headers['service-event-id']);
    }
    const read = await api<Ticket>(`/tickets/${ticket.id}`);
    expect(deliveries.at(-1)!.body.ordering.updated_at).toBe(read.body.updated_at);
  });
});

describe('a secret rotation', () => {
  it('signs webhook-signature with the new and the old secret during the overlap', async () => {
    const rotated = JSON.parse(await partnerctl('webhook', 'rotate-secret', String(endpoint.id), '--org', String(org.id))) as { secret: string };
    expect(rotated.secret).not.toBe(endpoint.secret);
    const ticket = await compTicket('dan@example.com');
    const { request } = (await deliveriesAbout('ticket', ticket.id, 1))[0]!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated.secret).verify(request.body, standardHeaders(request))).not.toThrow();
    expect(() => new Webhook(endpoint.secret).verify(request.body, standardHeaders(request))).not.toThrow();
  });
});

describe('an order through purchase and two refunds', () => {
  it('counts 1, 2, 3 under order:<id>: order.completed, then each order.refunded', async () => {
    const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', { method: 'POST', body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 2 }] } });
    expect(session.status).toBe(201);
    expect((await payCheckout(session.body.checkout_url, { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', ...GOOD_CARD })).status).toBe(303);
    const order = await api<{ id: string; tickets: Ticket[] }>(`/orders/${session.body.id}`);
    await partnerctl('order', 'refund', order.body.id, '--org', String(org.id), '--tickets', String(order.body.tickets[0]!.id));
    await partnerctl('order', 'refund', order.body.id, '--org', String(org.id));

    const deliveries = await deliveriesAbout('order', order.body.id, 3);
    expect(deliveries.map(({ body }) => [body.type, body.ordering.key, body.ordering.sequence])).toEqual([
      ['order.completed', `order:${order.body.id}`, 1],
      ['order.refunded', `order:${order.body.id}`, 2],
      ['order.refunded', `order:${order.body.id}`, 3],
    ]);
    // The last one carries the order as it now is.
    const read = await api<{ status: string; updated_at: string }>(`/orders/${order.body.id}`);
    expect(read.body.status).toBe('refunded');
    expect(deliveries.at(-1)!.body.data.object).toEqual(read.body);
  }, 60_000);
});
