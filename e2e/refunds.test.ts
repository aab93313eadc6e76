/**
 * Refunds against the running stack: an order paid on the hosted checkout
 * is refunded with `partnerctl order refund` (a platform operation; the
 * partner API has no refund endpoint), first one ticket, then the rest.
 * The API's view afterwards (order, tickets, GET /orders?status=refunded,
 * availability, check-in of a refunded ticket) and a signed
 * `order.refunded` reaching a partner's receiver with data.object equal to
 * what GET /orders/{id} returns; a retried refund id refunds once
 * (decisions D220–D229); a default refund after one with --amount returns
 * its own tickets' share (D390).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { api, type ErrorBody } from './support/api';
import { partnerctl } from './support/partnerctl';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { Receiver } from '../services/webhooks/test/support';

interface Ticket {
  id: number;
  status: string;
  barcode: string;
}
interface Order {
  object: string;
  id: string;
  status: string;
  total: string;
  refunded_amount: string;
  tickets: Ticket[];
  updated_at: string;
}
interface Delivered {
  id: string;
  type: string;
  data: { object: Order; refunded_ticket_ids: number[] };
}

let organisation: { id: number; key: string };
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  organisation = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'check_in:write', 'webhooks:manage']);
  receiver = await new Receiver().start();
  const endpoint = await api<{ secret: string }>('/webhook_endpoints', {
    method: 'POST',
    key: organisation.key,
    body: { url: `${receiver.url}/refunds`, event_types: ['order.refunded'] },
  });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.secret;
}, 30_000);

afterAll(async () => {
  await receiver?.stop();
});

/** What a partner's receiver does with Service-Signature: HMAC-SHA256 of `<t>.<body>` under the whole secret, any v1 matching. */
function partnerAccepts(header: string, body: string): boolean {
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([name]) => name === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([name, value]) => name === 'v1' && value?.length === 64 && timingSafeEqual(Buffer.from(value, 'hex'), expected));
}

/** The order.refunded deliveries the receiver has, checked as a partner checks them. */
async function deliveries(count: number): Promise<Delivered[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const received = receiver.requests.filter((request) => request.path === '/refunds');
    if (received.length >= count || Date.now() > deadline) {
      for (const request of received) expect(partnerAccepts(String(request.headers['service-signature']), request.body)).toBe(true);
      return received.map((request) => JSON.parse(request.body) as Delivered);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('refunds a ticket, then the rest, through partnerctl: the API shows it and a signed order.refunded carries what GET returns', async () => {
  const inventory = inventoryClient();
  const ctx = operatorContext(organisation.id);
  const slug = uniqueSlug('refunds');
  try {
    await inventory.upsertEvent({ fields: { slug, title: 'Refund Night', startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
    const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: 10n } }, ctx);
    await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '50.00', bookingFee: '0.00', maxPerOrder: 5, poolIds: [pool.id] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  } finally {
    inventory.close();
  }
  const types = await api<{ data: Array<{ id: number; available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key });
  const typeId = types.body.data[0]!.id;

  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    key: organisation.key,
    body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 3 }] },
  });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', ...GOOD_CARD })).status).toBe(303);
  const paid = await api<Order>(`/orders/${session.body.id}`, { key: organisation.key });
  expect(paid.body).toMatchObject({ status: 'completed', total: '150.00', refunded_amount: '0.00' });
  const [first, second, third] = paid.body.tickets;

  // One ticket: the order is partially refunded, the ticket refunded, its seat back on sale.
  const partial = await partnerctl('order', 'refund', paid.body.id, '--org', String(organisation.id), '--tickets', String(first!.id), '--reason', 'cannot come');
  expect(partial.code).toBe(0);
  const refundId = /^refund ([0-9a-f-]{36})$/m.exec(partial.stderr)![1]!;
  expect(JSON.parse(partial.stdout)).toMatchObject({ id: paid.body.id, status: 'partially_refunded', refunded_amount: '50.00' });
  const afterPartial = await api<Order>(`/orders/${paid.body.id}`, { key: organisation.key });
  expect(afterPartial.body).toMatchObject({ status: 'partially_refunded', refunded_amount: '50.00' });
  expect(afterPartial.body.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'valid', 'valid']);
  expect((await api<Ticket>(`/tickets/${first!.id}`, { key: organisation.key })).body.status).toBe('refunded');
  expect((await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key })).body.data[0]!.available).toBe(8);

  const [partialEvent] = await deliveries(1);
  expect(partialEvent).toMatchObject({ type: 'order.refunded', data: { refunded_ticket_ids: [first!.id] } });
  expect(partialEvent!.data.object).toEqual(afterPartial.body);

  // A refunded ticket cannot be checked in.
  const scan = await api(`/events/${slug}/check_ins`, { method: 'POST', key: organisation.key, body: { code: first!.barcode } });
  expect(scan.status).toBe(422);
  expect((scan.body as unknown as ErrorBody).error.code).toBe('ticket_void');

  // The rest: refunded, and GET /orders?status=refunded finds it.
  const rest = await partnerctl('order', 'refund', paid.body.id, '--org', String(organisation.id));
  expect(rest.code).toBe(0);
  const afterAll = await api<Order>(`/orders/${paid.body.id}`, { key: organisation.key });
  expect(afterAll.body).toMatchObject({ status: 'refunded', refunded_amount: '150.00' });
  expect(afterAll.body.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'refunded', 'refunded']);
  const listed = await api<{ data: Order[] }>(`/orders?status=refunded&limit=100`, { key: organisation.key });
  expect(listed.body.data.map((order) => order.id)).toContain(paid.body.id);
  const completed = await api<{ data: Order[] }>(`/orders?status=completed&limit=100`, { key: organisation.key });
  expect(completed.body.data.map((order) => order.id)).not.toContain(paid.body.id);
  expect((await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key })).body.data[0]!.available).toBe(10);

  const [, fullEvent] = await deliveries(2);
  expect(fullEvent).toMatchObject({ type: 'order.refunded', data: { refunded_ticket_ids: [second!.id, third!.id] } });
  expect(fullEvent!.data.object).toEqual(afterAll.body);

  // Repeating the first refund's id refunds nothing more and fires nothing.
  const repeat = await partnerctl('order', 'refund', paid.body.id, '--org', String(organisation.id), '--tickets', String(first!.id), '--refund-id', refundId);
  expect(repeat.code).toBe(0);
  expect(JSON.parse(repeat.stdout)).toMatchObject({ status: 'refunded', refunded_amount: '150.00' });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await deliveries(3)).toHaveLength(2);
}, 90_000);

/** An order of `quantity` tickets at 30.00, paid on the hosted checkout. */
async function paidOrder(quantity: number): Promise<Order> {
  const inventory = inventoryClient();
  const ctx = operatorContext(organisation.id);
  const slug = uniqueSlug('refund-share');
  try {
    await inventory.upsertEvent({ fields: { slug, title: 'Refund Shares', startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
    const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: 10n } }, ctx);
    await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '30.00', bookingFee: '0.00', maxPerOrder: 5, poolIds: [pool.id] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  } finally {
    inventory.close();
  }
  const types = await api<{ data: Array<{ id: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key });
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    key: organisation.key,
    body: { event_id: slug, items: [{ ticket_type_id: types.body.data[0]!.id, quantity }] },
  });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', ...GOOD_CARD })).status).toBe(303);
  return (await api<Order>(`/orders/${session.body.id}`, { key: organisation.key })).body;
}

it("refunds by default only the remaining ticket's share after a ticket refunded with --amount, in either order (D390)", async () => {
  const refund = async (orderId: string, ...options: string[]) => {
    const result = await partnerctl('order', 'refund', orderId, '--org', String(organisation.id), ...options);
    expect(result).toMatchObject({ code: 0 });
    return JSON.parse(result.stdout) as Order;
  };

  // A partial amount first, then the default: the other ticket's 30.00, not the 47.50 left.
  const amountFirst = await paidOrder(2);
  expect(amountFirst.total).toBe('60.00');
  expect(await refund(amountFirst.id, '--tickets', String(amountFirst.tickets[0]!.id), '--amount', '12.50')).toMatchObject({ refunded_amount: '12.50' });
  expect(await refund(amountFirst.id)).toMatchObject({ status: 'refunded', refunded_amount: '42.50' });
  expect((await api<Order>(`/orders/${amountFirst.id}`, { key: organisation.key })).body).toMatchObject({ status: 'refunded', refunded_amount: '42.50' });

  // The default first, then a partial amount: 30.00 and 12.50.
  const defaultFirst = await paidOrder(2);
  expect(await refund(defaultFirst.id, '--tickets', String(defaultFirst.tickets[0]!.id))).toMatchObject({ refunded_amount: '30.00' });
  expect(await refund(defaultFirst.id, '--amount', '12.50')).toMatchObject({ status: 'refunded', refunded_amount: '42.50' });

  // An explicit amount is bounded by paid minus refunded.
  const bounded = await paidOrder(2);
  await refund(bounded.id, '--tickets', String(bounded.tickets[0]!.id), '--amount', '12.50');
  const tooMuch = await partnerctl('order', 'refund', bounded.id, '--org', String(organisation.id), '--amount', '47.51');
  expect(tooMuch.code).toBe(1);
  expect(tooMuch.stderr).toContain('At most 47.50');
  expect(await refund(bounded.id, '--amount', '47.50')).toMatchObject({ status: 'refunded', refunded_amount: '60.00' });
}, 90_000);

it('tells the operator what is wrong and changes nothing', async () => {
  const unknown = await partnerctl('order', 'refund', randomUUID(), '--org', String(organisation.id));
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/error: .*order/i);
  const badTickets = await partnerctl('order', 'refund', randomUUID(), '--org', String(organisation.id), '--tickets', '1,x');
  expect(badTickets.code).not.toBe(0);
  expect(badTickets.stderr).toContain('ticket ids');
  // Two CLI processes: each start took up to 11 s on a loaded 2-core runner.
}, 60_000);
