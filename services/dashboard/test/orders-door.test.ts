/**
 * The dashboard's orders and door pages against real inventory, tickets and
 * orders servers in this process (PostgreSQL, Redis, Kafka), orders paid
 * through the hosted checkout: the list and the order page, a refund form
 * sent twice refunding once, transfer, void, the door's results, roles,
 * and another organisation's ids answering 404.
 */
import { ApiError, randomBase62, type RequestContext } from '@partner-api/shared';
import { Backends, paidOrder } from '../../orders/test/support';
import { csrfOf, DashboardSuite, type Browser, type Page } from './support';

jest.setTimeout(90_000);

const backends = new Backends();
const suite = new DashboardSuite();
let orders: Awaited<ReturnType<Backends['startOrders']>>;

beforeAll(async () => {
  await backends.start();
  orders = await backends.startOrders({ REFUND_RECOVERY_DELAY_MS: '3600000' });
  await suite.start({ ORDERS_GRPC_ADDR: `127.0.0.1:${orders.running.runtime.grpcPort}`, TICKETS_GRPC_ADDR: backends.ticketsAddr, INVENTORY_GRPC_ADDR: backends.inventoryAddr });
}, 90_000);

afterAll(async () => {
  await suite.stop();
  orders?.client.close();
  await backends.stop();
});

const contextOf = (organisationId: number): RequestContext => ({ organisationId, mode: 'live', keyId: 0, requestId: `it-${randomBase62(8)}` });

/** An organisation with an owner signed in, an event on sale and one paid order of `quantity` tickets at 30.00. */
async function organisationWithOrder(quantity = 2) {
  const org = await suite.organisation();
  const ctx = contextOf(org.id);
  const owner = await suite.signedInMember(org.id);
  const event = await backends.eventOnSale(ctx, 20, '30.00');
  const orderId = await paidOrder(orders, ctx, event, quantity);
  const order = await orders.client.getOrder({ id: orderId }, ctx);
  return { org, ctx, owner, event, orderId, tickets: order.tickets };
}

/** The hidden fields of the page's form that posts to `action`, as the browser would send them. */
function hiddenFields(html: string, action: string): Record<string, string | string[]> {
  const form = new RegExp(`<form[^>]*action="${action.replace(/[/]/g, '\\/')}"[^>]*>([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form posting to ${action}`);
  const fields: Record<string, string | string[]> = {};
  for (const [, name, value] of form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    const existing = fields[name!];
    fields[name!] = existing === undefined ? value! : [...(Array.isArray(existing) ? existing : [existing]), value!];
  }
  return fields;
}

/** Scans `code` at the door of `eventId`, as the door page's form does. */
async function scan(browser: Browser, eventId: bigint, code: string): Promise<Page & { outcome: string | undefined }> {
  const page = await browser.submit(`/door?event=${eventId}`, '/door', { event: String(eventId), code });
  return { ...page, outcome: /data-outcome="([a-z_]+)"/.exec(page.html)?.[1] };
}

const auditActions = async (organisationId: number, action: string) =>
  (await suite.db.query<{ target: string; detail: Record<string, unknown> }>('SELECT target, detail FROM audit_events WHERE organisation_id = $1 AND action = $2 ORDER BY id', [organisationId, action])).rows;

describe('orders', () => {
  test('the list shows a paid order, newest first and by status; the order page lists its tickets with only the end of each code', async () => {
    const { owner, ctx, event, orderId, tickets } = await organisationWithOrder(2);
    const newer = await paidOrder(orders, ctx, event, 1);

    const list = await owner.browser.get('/orders');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`data-order-id="${orderId}"`);
    expect(list.html.indexOf(`data-order-id="${newer}"`)).toBeLessThan(list.html.indexOf(`data-order-id="${orderId}"`));
    expect(list.html).toContain('Refund Night');
    const refundedOnly = await owner.browser.get(`/orders?status=refunded&event=${event.eventId}`);
    expect(refundedOnly.html).not.toContain(`data-order-id="${orderId}"`);
    expect(refundedOnly.html).toContain('No orders match.');
    const pageOfOne = await owner.browser.get(`/orders?event=${event.eventId}`);
    expect(pageOfOne.html).toContain(`data-order-id="${orderId}"`);

    const page = await owner.browser.get(`/orders/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('completed');
    expect(page.html).toContain('60.00 AUD');
    expect(page.html).toContain('ann@example.com');
    for (const ticket of tickets) {
      expect(page.html).toContain(`data-ticket-id="${ticket.id}"`);
      expect(page.html).toContain(`…${ticket.barcode.slice(-4)}`);
      expect(page.html).not.toContain(ticket.barcode);
      expect(page.html).toContain(`/orders/${orderId}/tickets/${ticket.id}/transfer`);
    }
  });

  test('search opens an order by its id, by a ticket number and by a ticket code, which checks nobody in', async () => {
    const { ctx, owner, orderId, tickets } = await organisationWithOrder(1);
    const byOrder = await owner.browser.get(`/orders?q=${orderId.toUpperCase()}`);
    expect(byOrder.status).toBe(303);
    expect(byOrder.location).toBe(`/orders/${orderId}`);
    const byTicket = await owner.browser.get(`/orders?q=${tickets[0]!.id}`);
    expect(byTicket.status).toBe(303);
    expect(byTicket.location).toBe(`/orders/${orderId}#ticket-${tickets[0]!.id}`);
    const byCode = await owner.browser.get(`/orders?q=${encodeURIComponent(` ${tickets[0]!.barcode} `)}`);
    expect(byCode.status).toBe(303);
    expect(byCode.location).toBe(`/orders/${orderId}#ticket-${tickets[0]!.id}`);
    expect((await orders.client.getOrder({ id: orderId }, ctx)).tickets[0]!.checkedInAt).toBeUndefined();
    const unknownCode = await owner.browser.get(`/orders?q=${randomBase62(22)}`);
    expect(unknownCode.status).toBe(404);
    expect(unknownCode.html).toContain('No order id, ticket number or ticket code');
    expect(unknownCode.html).toContain('aria-invalid="true"');
    const tooLong = await owner.browser.get(`/orders?q=${'x'.repeat(257)}`);
    expect(tooLong.status).toBe(400);
    const missing = await owner.browser.get('/orders?q=99999999999');
    expect(missing.status).toBe(404);
  });

  test('a partial refund through the confirmation page; the same form sent twice refunds once', async () => {
    const { org, ctx, owner, orderId, tickets } = await organisationWithOrder(2);
    const [first, second] = tickets;

    const confirmation = await owner.browser.get(`/orders/${orderId}/refund?scope=chosen&tickets=${first!.id}&reason=cannot+come&restock=yes`);
    expect(confirmation.status).toBe(200);
    expect(confirmation.html).toContain('Confirm refund');
    const fields = hiddenFields(confirmation.html, `/orders/${orderId}/refund`);
    expect(fields.refund_id).toMatch(/^[0-9a-f-]{36}$/);
    // Another opening of the page is another refund.
    expect(hiddenFields((await owner.browser.get(`/orders/${orderId}/refund?tickets=${first!.id}`)).html, `/orders/${orderId}/refund`).refund_id).not.toBe(fields.refund_id);

    const sent = await owner.browser.request('POST', `/orders/${orderId}/refund`, fields);
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/orders/${orderId}?done=order_refunded`);
    const again = await owner.browser.request('POST', `/orders/${orderId}/refund`, fields);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`/orders/${orderId}?done=refund_repeated`);

    const order = await orders.client.getOrder({ id: orderId }, ctx);
    expect(order).toMatchObject({ status: 'partially_refunded', refundedAmount: '30.00' });
    expect(order.tickets.map((ticket) => [ticket.id, ticket.status])).toEqual([
      [first!.id, 'refunded'],
      [second!.id, 'valid'],
    ]);
    const page = await owner.browser.get(`/orders/${orderId}?done=order_refunded`);
    expect(page.html).toContain('data-testid="flash"');
    expect(page.html).toMatch(/data-testid="refunded-amount">30\.00 AUD/);
    expect(await auditActions(org.id, 'order.refunded')).toEqual([
      { target: `order ${orderId}`, detail: { refund_id: fields.refund_id, ticket_ids: [Number(first!.id)], amount: '30.00', reason: 'cannot come', restock: true } },
    ]);

    // Refunding the refunded ticket again with a new confirmation is refused on the page, not a 500.
    const refused = await owner.browser.get(`/orders/${orderId}/refund?tickets=${first!.id}`);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('only valid tickets can be refunded');
    // Too much money is refused by the confirmation page.
    const tooMuch = await owner.browser.get(`/orders/${orderId}/refund?tickets=${second!.id}&amount=45.00`);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.html).toContain('At most 30.00');
  });

  test('a transfer changes the attendee; the old code no longer checks in and the new one does; a checked-in ticket is refused on the page', async () => {
    const { ctx, owner, event, orderId, tickets } = await organisationWithOrder(2);
    const [ticket, other] = tickets;
    const path = `/orders/${orderId}/tickets/${ticket!.id}/transfer`;
    expect((await owner.browser.get(path)).html).toContain('New attendee');

    const moved = await owner.browser.submit(path, path, { email: 'bo@example.com', first_name: 'Bo', last_name: 'Diaz' });
    expect(moved.status).toBe(303);
    expect(moved.location).toBe(`/orders/${orderId}?done=ticket_transferred`);
    const after = await backends.ticketsClient.getTicket({ id: ticket!.id }, ctx);
    expect(after.attendee).toMatchObject({ email: 'bo@example.com', firstName: 'Bo', lastName: 'Diaz' });
    expect(after.barcode).not.toBe(ticket!.barcode);
    expect((await owner.browser.get(`/orders/${orderId}`)).html).toContain('Bo Diaz');

    const old = await scan(owner.browser, event.eventId, ticket!.barcode);
    expect(old.outcome).toBe('unknown_code');
    expect(old.status).toBe(404);
    expect((await scan(owner.browser, event.eventId, after.barcode)).outcome).toBe('checked_in');

    expect((await scan(owner.browser, event.eventId, other!.barcode)).outcome).toBe('checked_in');
    const otherPath = `/orders/${orderId}/tickets/${other!.id}/transfer`;
    const refused = await owner.browser.submit(`/orders/${orderId}`, otherPath, { email: 'cy@example.com' });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('checked in and can no longer be transferred');
    expect((await backends.ticketsClient.getTicket({ id: other!.id }, ctx)).attendee?.email).toBe('ann@example.com');
  });

  test('a voided ticket is shown void at the door', async () => {
    const { org, ctx, owner, event, orderId, tickets } = await organisationWithOrder(1);
    const path = `/orders/${orderId}/tickets/${tickets[0]!.id}/void`;
    const noReason = await owner.browser.submit(path, path, { reason: ' ' });
    expect(noReason.status).toBe(400);
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('valid');

    const voided = await owner.browser.submit(path, path, { reason: 'duplicate booking' });
    expect(voided.status).toBe(303);
    expect(voided.location).toBe(`/orders/${orderId}?done=ticket_voided`);
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('void');
    expect(await auditActions(org.id, 'ticket.voided')).toEqual([{ target: `ticket ${tickets[0]!.id}`, detail: { order_id: orderId, reason: 'duplicate booking' } }]);

    const door = await scan(owner.browser, event.eventId, tickets[0]!.barcode);
    expect(door.outcome).toBe('ticket_void');
    expect(door.status).toBe(422);
    expect(door.html).toContain('role="alert"');
    expect(door.html).toContain('Do not admit');
  });
});

describe('the door', () => {
  test('admits a valid code once; the second scan says already checked in; the field comes back empty and focused; each attempt is audited', async () => {
    const { org, ctx, event, tickets } = await organisationWithOrder(1);
    const door = await suite.signedInMember(org.id, 'door_staff');
    const chooser = await door.browser.get('/door');
    expect(chooser.status).toBe(200);
    expect(chooser.html).toContain(`<option value="${event.eventId}">Refund Night`);

    const first = await scan(door.browser, event.eventId, `  ${tickets[0]!.barcode}\n`);
    expect(first.status).toBe(200);
    expect(first.outcome).toBe('checked_in');
    expect(first.html).toMatch(/role="status"[^>]*data-testid="door-result"/);
    expect(first.html).toContain('Admitted');
    expect(first.html).toContain('Ann Lee');
    expect(first.html).toContain('GA');
    const field = /<input id="code"[^>]*>/.exec(first.html)![0];
    expect(field).toContain('autofocus');
    expect(field).toContain('autocomplete="off"');
    expect(field).not.toContain('value=');
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('checked_in');

    const second = await scan(door.browser, event.eventId, tickets[0]!.barcode);
    expect(second.outcome).toBe('already_checked_in');
    expect(second.html).toContain('Already checked in');
    expect(second.html).toContain('role="alert"');

    const unknown = await scan(door.browser, event.eventId, 'NOT-A-REAL-CODE-1234');
    expect(unknown.outcome).toBe('unknown_code');

    expect((await auditActions(org.id, 'door.check_in')).map((row) => [row.target, row.detail.result])).toEqual([
      [`ticket ${tickets[0]!.id}`, 'checked_in'],
      [`ticket ${tickets[0]!.id}`, 'already_checked_in'],
      ['code …1234', 'unknown_code'],
    ]);
  });

  test('a ticket of another event of the organisation is the wrong event', async () => {
    const { ctx, owner, tickets } = await organisationWithOrder(1);
    const otherEvent = await backends.eventOnSale(ctx, 5, '10.00');
    const result = await scan(owner.browser, otherEvent.eventId, tickets[0]!.barcode);
    expect(result.outcome).toBe('ticket_wrong_event');
    expect(result.status).toBe(409);
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('valid');
  });
});

describe('test mode', () => {
  test('the order pages are read-only and the door checks codes without checking anyone in', async () => {
    const { ctx, owner, event, orderId, tickets } = await organisationWithOrder(1);
    expect((await owner.browser.submit('/orders', '/mode', { mode: 'test', return_to: '/orders' })).status).toBe(303);
    const page = await owner.browser.get(`/orders/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Test data is read-only');
    expect(page.html).not.toContain(`/tickets/${tickets[0]!.id}/void`);
    const voided = await owner.browser.submit(`/orders/${orderId}`, `/orders/${orderId}/tickets/${tickets[0]!.id}/void`, { reason: 'tried in test mode' });
    expect(voided.status).toBe(409);
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('valid');

    const dry = await scan(owner.browser, event.eventId, tickets[0]!.barcode);
    expect(dry.outcome).toBe('checked_in');
    expect(dry.html).toContain('nobody is checked in');
    expect((await backends.ticketsClient.getTicket({ id: tickets[0]!.id }, ctx)).status).toBe('valid');
  });
});

describe('roles and organisations', () => {
  test('door staff cannot open the orders pages', async () => {
    const { org, orderId, tickets } = await organisationWithOrder(1);
    const door = await suite.signedInMember(org.id, 'door_staff');
    expect((await door.browser.get('/orders')).status).toBe(403);
    expect((await door.browser.get(`/orders/${orderId}`)).status).toBe(403);
    expect((await door.browser.submit('/door', `/orders/${orderId}/tickets/${tickets[0]!.id}/void`, { reason: 'not mine to void' })).status).toBe(403);
    expect((await door.browser.get('/door')).status).toBe(200);
    const developer = await suite.signedInMember(org.id, 'developer');
    expect((await developer.browser.get(`/orders/${orderId}`)).status).toBe(200);
    expect((await developer.browser.get(`/orders/${orderId}/refund?tickets=${tickets[0]!.id}`)).status).toBe(403);
  });

  test("another organisation's order and ticket ids answer 404 and change nothing", async () => {
    const a = await organisationWithOrder(1);
    const b = await organisationWithOrder(1);
    // The services scope by organisation: B's id is resource_missing for A.
    const error = await orders.client.getOrder({ id: b.orderId }, a.ctx).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('resource_missing');

    const ticket = b.tickets[0]!;
    expect((await a.owner.browser.get(`/orders/${b.orderId}`)).status).toBe(404);
    expect((await a.owner.browser.get(`/orders?q=${b.orderId}`)).status).toBe(404);
    expect((await a.owner.browser.get(`/orders?q=${ticket.id}`)).status).toBe(404);
    expect((await a.owner.browser.get(`/orders?q=${ticket.barcode}`)).status).toBe(404);
    expect((await a.owner.browser.get(`/orders/${b.orderId}/tickets/${ticket.id}/transfer`)).status).toBe(404);
    // B's ticket under A's order is no ticket of that order either.
    expect((await a.owner.browser.get(`/orders/${a.orderId}/tickets/${ticket.id}/void`)).status).toBe(404);
    const page = await a.owner.browser.get(`/orders/${a.orderId}`);
    const refund = await a.owner.browser.request('POST', `/orders/${b.orderId}/refund`, { _csrf: csrfOf(page.html), refund_id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', tickets: String(ticket.id) });
    expect(refund.status).toBe(404);
    expect((await a.owner.browser.submit(`/orders/${a.orderId}`, `/orders/${b.orderId}/tickets/${ticket.id}/void`, { reason: 'not ours' })).status).toBe(404);
    expect((await scan(a.owner.browser, a.event.eventId, ticket.barcode)).outcome).toBe('unknown_code');
    expect((await a.owner.browser.get(`/door?event=${b.event.eventId}`)).status).toBe(404);

    const untouched = await orders.client.getOrder({ id: b.orderId }, b.ctx);
    expect(untouched).toMatchObject({ status: 'completed', refundedAmount: '0.00' });
    expect(untouched.tickets[0]).toMatchObject({ status: 'valid', barcode: ticket.barcode });
  });
});
