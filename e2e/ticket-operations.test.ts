/**
 * `partnerctl ticket transfer` and `ticket void` against the running stack.
 * Transfers (D230, D231): the partner sees the new attendee and barcode
 * through GET /tickets/{id} and the attendee list, the old barcode no
 * longer opens the door and the new one does, and a signed
 * `ticket.transferred` carrying the ticket as GET shows it and the previous
 * attendee's email reaches the partner's receiver. Voids (D232, D233): the
 * ticket reads `void`, leaves the attendee list, answers `422 ticket_void`
 * at the door and its place is back on sale, once.
 */
import { api as callApi, type ErrorBody } from './support/api';
import { partnerctl } from './support/partnerctl';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { deliveryOf, partnerAccepts } from './support/webhooks';
import { Receiver } from '../services/webhooks/test/support';

// Each partnerctl run starts a Node process; a test runs up to four of them.
jest.setTimeout(30_000);

interface Ticket {
  id: number;
  barcode: string;
  status: string;
  attendee: { first_name: string | null; last_name: string | null; email: string | null };
}

let org: { id: number; key: string };
let inventory: InventoryClient;
let receiver: Receiver;
let secret: string;
let slug: string;
let typeId: number;

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });

async function compTicket(email: string): Promise<Ticket> {
  const response = await api<{ tickets: Ticket[] }>('/comp_tickets', { method: 'POST', body: { event_id: slug, ticket_type_id: typeId, attendees: [{ email, name: 'Ann Lee' }] } });
  expect(response.status).toBe(201);
  return response.body.tickets[0]!;
}

async function available(): Promise<number | null> {
  const response = await api<{ data: Array<{ id: number; available: number | null }> }>(`/events/${slug}/ticket_types`);
  return response.body.data.find((type) => type.id === typeId)!.available;
}

const checkIn = (code: string) => api<{ result: string; ticket: Ticket }>(`/events/${slug}/check_ins`, { method: 'POST', body: { code } });

beforeAll(async () => {
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'attendees:read', 'check_in:write', 'webhooks:manage']);
  inventory = inventoryClient();
  receiver = await new Receiver().start();
  const endpoint = await api<{ secret: string }>('/webhook_endpoints', { method: 'POST', body: { url: `${receiver.url}/transfers`, event_types: ['ticket.transferred'] } });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.secret;

  const ctx = operatorContext(org.id);
  slug = uniqueSlug('transfer');
  await inventory.upsertEvent({ fields: { slug, title: 'Transfer Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 50n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  typeId = Number(type.id);
}, 30_000);

afterAll(async () => {
  inventory?.close();
  await receiver?.stop();
});

describe('partnerctl ticket transfer', () => {
  it('moves the ticket to the new attendee with a new barcode, retires the old one at the door, and fires ticket.transferred', async () => {
    const ticket = await compTicket('ann@example.com');
    const run = await partnerctl('ticket', 'transfer', String(ticket.id), '--org', String(org.id), '--email', 'ben@example.com', '--name', 'Ben van Ng');
    expect(run).toMatchObject({ code: 0 });
    const printed = JSON.parse(run.stdout) as Ticket;

    const read = await api<Ticket>(`/tickets/${ticket.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(printed);
    expect(read.body).toMatchObject({ status: 'valid', attendee: { first_name: 'Ben', last_name: 'van Ng', email: 'ben@example.com' } });
    expect(read.body.barcode).not.toBe(ticket.barcode);

    const attendees = await api<{ data: Ticket[] }>(`/events/${slug}/attendees`);
    expect(attendees.body.data.find((entry) => entry.id === ticket.id)).toEqual(read.body);

    const delivery = await deliveryOf(receiver, '/transfers', 'ticket.transferred');
    expect(partnerAccepts(String(delivery.headers['service-signature']), delivery.body, secret)).toBe(true);
    const event = JSON.parse(delivery.body) as { type: string; livemode: boolean; data: { object: Ticket; previous_attendee_email: string } };
    expect(event).toMatchObject({ type: 'ticket.transferred', livemode: true, data: { previous_attendee_email: 'ann@example.com' } });
    expect(event.data.object).toEqual(read.body);

    const old = await checkIn(ticket.barcode);
    expect([old.status, (old.body as unknown as ErrorBody).error.code]).toEqual([404, 'resource_missing']);
    const scanned = await checkIn(read.body.barcode);
    expect([scanned.status, scanned.body.result, scanned.body.ticket.attendee.email]).toEqual([200, 'checked_in', 'ben@example.com']);
  });

  it('refuses a checked-in ticket and leaves it as it was', async () => {
    const ticket = await compTicket('cleo@example.com');
    expect((await checkIn(ticket.barcode)).status).toBe(200);
    const run = await partnerctl('ticket', 'transfer', String(ticket.id), '--org', String(org.id), '--email', 'dan@example.com');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('checked in');
    const read = await api<Ticket>(`/tickets/${ticket.id}`);
    expect([read.body.barcode, read.body.attendee.email, read.body.status]).toEqual([ticket.barcode, 'cleo@example.com', 'checked_in']);
  });

  it('refuses a ticket id the organisation does not have', async () => {
    const run = await partnerctl('ticket', 'transfer', '999999999', '--org', String(org.id), '--email', 'dan@example.com');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No such ticket');
  });
});

describe('partnerctl ticket void', () => {
  it('takes the ticket out of use and puts its place back on sale, once', async () => {
    const before = await available();
    const ticket = await compTicket('gus@example.com');
    expect(await available()).toBe(before! - 1);

    const run = await partnerctl('ticket', 'void', String(ticket.id), '--org', String(org.id), '--reason', 'chargeback');
    expect(run).toMatchObject({ code: 0 });
    const read = await api<Ticket>(`/tickets/${ticket.id}`);
    expect(read.body).toEqual(JSON.parse(run.stdout));
    expect(read.body.status).toBe('void');
    expect(await available()).toBe(before);

    const attendees = await api<{ data: Ticket[] }>(`/events/${slug}/attendees`);
    expect(attendees.body.data.map((entry) => entry.id)).not.toContain(ticket.id);
    const scan = await checkIn(ticket.barcode);
    expect([scan.status, (scan.body as unknown as ErrorBody).error.code]).toEqual([422, 'ticket_void']);

    // A repeat answers the same ticket and returns nothing more; a void ticket cannot be transferred.
    const again = await partnerctl('ticket', 'void', String(ticket.id), '--org', String(org.id));
    expect(JSON.parse(again.stdout)).toEqual(read.body);
    expect(await available()).toBe(before);
    const transfer = await partnerctl('ticket', 'transfer', String(ticket.id), '--org', String(org.id), '--email', 'hal@example.com');
    expect([transfer.code, transfer.stderr]).toEqual([1, expect.stringContaining('voided')]);
  });

  it('refuses a checked-in ticket, which keeps its place', async () => {
    const ticket = await compTicket('ivy@example.com');
    expect((await checkIn(ticket.barcode)).status).toBe(200);
    const before = await available();
    const run = await partnerctl('ticket', 'void', String(ticket.id), '--org', String(org.id));
    expect([run.code, run.stderr]).toEqual([1, expect.stringContaining('checked in')]);
    expect((await api<Ticket>(`/tickets/${ticket.id}`)).body.status).toBe('checked_in');
    expect(await available()).toBe(before);
  });
});

