/**
 * The embed, storefront and web channels against real inventory, tickets
 * and orders servers (in this process), PostgreSQL, Redis and Kafka: the
 * allowed sites per organisation, the embed page framed only by an allowed
 * site, a purchase whose order carries its channel and site (and whose
 * order.completed says so), and bad input that holds and stores nothing.
 */
import { ApiError, type RequestContext } from '@partner-api/shared';
import { Backends, newOrganisation, type OrdersClient } from './support';

jest.setTimeout(60_000);

const SITE = 'https://shop.example.com';
const GOOD_CARD = { email: 'sam@example.com', first_name: 'Sam', last_name: 'Lee', card_name: 'Sam Lee', card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123' };

const backends = new Backends();
let orders: Awaited<ReturnType<Backends['startOrders']>>;
let client: OrdersClient;
let ctx: RequestContext;
let base: string;

beforeAll(async () => {
  await backends.start();
  orders = await backends.startOrders({ CHECKOUT_BASE_URL: 'https://tickets.example.net' });
  client = orders.client;
  base = `http://127.0.0.1:${orders.running.checkoutPort}`;
  ctx = newOrganisation();
}, 60_000);

afterAll(async () => {
  client?.close();
  await backends.stop();
});

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers, redirect: 'manual' });
const post = (path: string, fields: Record<string, string>) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
const tokenOf = (html: string) => /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
const frameAncestors = (response: Response) => /frame-ancestors ([^;]*)/.exec(response.headers.get('content-security-policy') ?? '')?.[1];
const sessionsOf = async (organisationId: number) =>
  (await backends.ordersDb.query<{ status: string }>("SELECT status FROM checkout_sessions WHERE organisation_id = $1 AND status NOT IN ('pending', 'failed')", [organisationId])).rows;

describe('the sites allowed to embed an organisation’s checkout', () => {
  it('adds an origin once in its normal form, lists it for its organisation only, and removes it', async () => {
    const own = newOrganisation();
    const other = newOrganisation();
    const added = await client.addChannelOrigin({ origin: 'https://Partner.Example.org/' }, own);
    expect(added).toMatchObject({ object: 'channel_origin', origin: 'https://partner.example.org' });
    const again = await client.addChannelOrigin({ origin: 'https://partner.example.org' }, own);
    expect(again.createdAt).toBe(added.createdAt);
    await client.addChannelOrigin({ origin: 'http://127.0.0.1:5173' }, own);
    expect((await client.listChannelOrigins({}, own)).data.map((row) => row.origin)).toEqual(['http://127.0.0.1:5173', 'https://partner.example.org']);
    expect((await client.listChannelOrigins({}, other)).data).toEqual([]);

    expect(await apiError(client.removeChannelOrigin({ origin: 'https://partner.example.org' }, other))).toMatchObject({ code: 'resource_missing', param: 'origin' });
    expect(await client.removeChannelOrigin({ origin: 'https://PARTNER.example.org' }, own)).toMatchObject({ removed: true });
    expect(await apiError(client.removeChannelOrigin({ origin: 'https://partner.example.org' }, own))).toMatchObject({ code: 'resource_missing' });
    expect((await client.listChannelOrigins({}, own)).data.map((row) => row.origin)).toEqual(['http://127.0.0.1:5173']);
  });

  it('refuses an address that is no origin, and stores nothing', async () => {
    const own = newOrganisation();
    for (const origin of ['http://shop.example.com', 'https://shop.example.com/path', 'nonsense', '']) {
      expect(await apiError(client.addChannelOrigin({ origin }, own))).toMatchObject({ code: 'parameter_invalid', param: 'origin' });
    }
    expect((await client.listChannelOrigins({}, own)).data).toEqual([]);
  });
});

describe('the embedded checkout', () => {
  let event: Awaited<ReturnType<Backends['eventOnSale']>>;
  let path: string;

  beforeAll(async () => {
    event = await backends.eventOnSale(ctx, 10, '25.00');
    path = `/embed/${ctx.organisationId}/events/${event.slug}`;
    await client.addChannelOrigin({ origin: SITE }, ctx);
  });

  it('is framed only by the allowed site that asks for it, and refused to any other', async () => {
    const page = await get(path, { referer: `${SITE}/whats-on/night`, 'sec-fetch-dest': 'iframe' });
    expect(page.status).toBe(200);
    expect(frameAncestors(page)).toBe(SITE);
    expect(page.headers.get('x-frame-options')).toBeNull();
    const html = await page.text();
    expect(html).toContain(`name="quantity_${event.typeId}"`);
    expect(tokenOf(html)).not.toBe('');

    for (const headers of [{ referer: 'https://evil.example/page' }, {} as Record<string, string>, { referer: 'https://shop.example.com.evil.example/' }, { referer: 'http://shop.example.com/' }]) {
      const refused = await get(path, headers);
      expect(refused.status).toBe(403);
      expect(frameAncestors(refused)).toBe("'none'");
      expect(refused.headers.get('x-frame-options')).toBe('DENY');
      expect(await refused.text()).toContain('role="alert"');
    }
    // The site is never taken from the address.
    expect((await get(`${path}?origin=${encodeURIComponent(SITE)}`, { referer: 'https://evil.example/' })).status).toBe(403);
  });

  it('answers 404 for an unknown organisation or event, or another organisation’s event', async () => {
    expect((await get(`/embed/abc/events/${event.slug}`, { referer: SITE })).status).toBe(404);
    expect((await get(`/embed/${ctx.organisationId}/events/no-such-event`, { referer: SITE })).status).toBe(404);
    const other = newOrganisation();
    await client.addChannelOrigin({ origin: SITE }, other);
    expect((await get(`/embed/${other.organisationId}/events/${event.slug}`, { referer: SITE })).status).toBe(404);
  });

  it('sells through the hosted checkout in the frame: the order is embed from the site, with its tickets and order.completed', async () => {
    const html = await (await get(path, { referer: `${SITE}/` })).text();
    const started = await post(path, { token: tokenOf(html), [`quantity_${event.typeId}`]: '2' });
    expect(started.status).toBe(303);
    const checkout = started.headers.get('location')!;
    expect(checkout).toMatch(/^\/checkout\/[0-9a-f-]{36}$/);
    expect(frameAncestors(started)).toBe(SITE);
    const orderId = checkout.slice('/checkout/'.length);

    const payPage = await get(checkout);
    expect(payPage.status).toBe(200);
    expect(frameAncestors(payPage)).toBe(SITE);
    expect(payPage.headers.get('x-frame-options')).toBeNull();
    const paid = await post(`${checkout}/pay`, GOOD_CARD);
    expect(paid.status).toBe(303);

    const order = await client.getOrder({ id: orderId }, ctx);
    expect(order).toMatchObject({ salesChannel: 'embed', channelOrigin: SITE, total: '50.00', status: 'completed' });
    expect(order.checkoutSessionId).toBeUndefined();
    expect(order.tickets).toHaveLength(2);
    const attendees = await backends.ticketsClient.listAttendees({ eventIdOrSlug: event.slug }, ctx);
    expect(attendees.data.filter((ticket) => ticket.orderId === orderId).map((ticket) => ticket.attendee?.email)).toEqual(['sam@example.com', 'sam@example.com']);
    const { rows } = await backends.ordersDb.query<{ payload: { data: { object: Record<string, unknown> } } }>(
      "SELECT payload FROM outbox WHERE partition_key = $1 AND event_type = 'order.completed'",
      [`order:${orderId}`],
    );
    expect(rows.map((row) => row.payload.data.object)).toEqual([expect.objectContaining({ sales_channel: 'embed', channel_origin: SITE, checkout_session_id: null })]);
    // Not an API checkout session.
    expect(await apiError(client.getCheckoutSession({ id: orderId }, ctx))).toMatchObject({ code: 'resource_missing' });
    // A page of another session is still never framed.
    expect(frameAncestors(await get('/checkout/00000000-0000-4000-8000-000000000000'))).toBe("'none'");
  });

  it('opens one session and holds once for a form sent several times at once', async () => {
    const own = newOrganisation();
    const ownEvent = await backends.eventOnSale(own, 10, '25.00');
    await client.addChannelOrigin({ origin: SITE }, own);
    const ownPath = `/embed/${own.organisationId}/events/${ownEvent.slug}`;
    const token = tokenOf(await (await get(ownPath, { referer: SITE })).text());
    const sent = await Promise.all([1, 2, 3, 4].map(() => post(ownPath, { token, [`quantity_${ownEvent.typeId}`]: '1' })));
    expect(sent.map((response) => response.status)).toEqual([303, 303, 303, 303]);
    expect(new Set(sent.map((response) => response.headers.get('location'))).size).toBe(1);
    // And again later (a resent form): the same session.
    const later = await post(ownPath, { token, [`quantity_${ownEvent.typeId}`]: '1' });
    expect(later.headers.get('location')).toBe(sent[0]!.headers.get('location'));
    expect(await sessionsOf(own.organisationId)).toEqual([{ status: 'open' }]);
    expect(await backends.available(own, ownEvent.slug)).toBe(9);
  });

  it('shows bad choices as an alert on the page and holds and stores nothing', async () => {
    const own = newOrganisation();
    const small = await backends.eventOnSale(own, 10, '25.00');
    await client.addChannelOrigin({ origin: SITE }, own);
    const smallPath = `/embed/${own.organisationId}/events/${small.slug}`;
    const token = tokenOf(await (await get(smallPath, { referer: SITE })).text());

    const cases: Array<[Record<string, string>, number, RegExp]> = [
      [{}, 400, /Choose at least one ticket/],
      [{ [`quantity_${small.typeId}`]: 'two' }, 400, /whole number/],
      [{ [`quantity_${small.typeId}`]: '11' }, 422, /./],
      [{ [`quantity_${event.typeId}`]: '1' }, 404, /./],
    ];
    for (const [fields, status, message] of cases) {
      const response = await post(smallPath, { token, ...fields });
      expect(response.status).toBe(status);
      expect(frameAncestors(response)).toBe(SITE);
      const html = await response.text();
      expect(/<p class="error" role="alert"[^>]*>([^<]*)<\/p>/.exec(html)?.[1]).toMatch(message);
    }
    const invalid = await (await post(smallPath, { token, [`quantity_${small.typeId}`]: '11' })).text();
    expect(invalid).toContain('aria-invalid="true"');

    // A forged or foreign token, and a form from a site removed since.
    const forged = await post(smallPath, { token: `${token}x`, [`quantity_${small.typeId}`]: '1' });
    expect(forged.status).toBe(400);
    expect(frameAncestors(forged)).toBe("'none'");
    expect((await post(path, { token, [`quantity_${event.typeId}`]: '1' })).status).toBe(400);
    await client.removeChannelOrigin({ origin: SITE }, own);
    expect((await post(smallPath, { token, [`quantity_${small.typeId}`]: '1' })).status).toBe(403);

    expect(await sessionsOf(own.organisationId)).toEqual([]);
    expect(await backends.available(own, small.slug)).toBe(10);
  });

  it('refuses more than is left with the checkout’s own message, and a form of too many fields', async () => {
    const own = newOrganisation();
    const tiny = await backends.eventOnSale(own, 1, '25.00');
    await client.addChannelOrigin({ origin: SITE }, own);
    const tinyPath = `/embed/${own.organisationId}/events/${tiny.slug}`;
    const token = tokenOf(await (await get(tinyPath, { referer: SITE })).text());
    const short = await post(tinyPath, { token, [`quantity_${tiny.typeId}`]: '2' });
    expect(short.status).toBe(422);
    expect(await short.text()).toMatch(/role="alert"[^>]*>[^<]*(available|left|remain)/i);
    expect(await sessionsOf(own.organisationId)).toEqual([]);
    expect(await backends.available(own, tiny.slug)).toBe(1);

    const fields = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`quantity_${index + 1}`, '0']));
    expect((await post(tinyPath, { token, ...fields })).status).toBe(413);
  });
});

describe('a page left open too long', () => {
  it('shows the choice again, framed by its site, with a fresh form; nothing held', async () => {
    const quick = await backends.startOrders({ CHECKOUT_BASE_URL: 'https://tickets.example.net', CHANNEL_PAGE_SECONDS: '1' });
    const quickBase = `http://127.0.0.1:${quick.running.checkoutPort}`;
    const own = newOrganisation();
    const event = await backends.eventOnSale(own, 10, '25.00');
    await client.addChannelOrigin({ origin: SITE }, own);
    const path = `${quickBase}/embed/${own.organisationId}/events/${event.slug}`;
    const token = tokenOf(await (await fetch(path, { headers: { referer: SITE } })).text());
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const stale = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, [`quantity_${event.typeId}`]: '3' }).toString(), redirect: 'manual' });
    expect(stale.status).toBe(400);
    expect(frameAncestors(stale)).toBe(SITE);
    const html = await stale.text();
    expect(html).toMatch(/role="alert"[^>]*>This page had been open too long/);
    expect(html).toContain(`name="quantity_${event.typeId}" min="0" max="10" step="1" inputmode="numeric" value="3"`);
    expect(tokenOf(html)).not.toBe(token);
    expect(await sessionsOf(own.organisationId)).toEqual([]);
    expect(await backends.available(own, event.slug)).toBe(10);
    quick.client.close();
  });
});

describe('the storefront and web channels', () => {
  it.each([
    ['storefront', 'https://tickets.example.net'],
    ['web', undefined],
  ])('sells %s orders with their channel, whatever the Referer says', async (channel, origin) => {
    const event = await backends.eventOnSale(ctx, 10, '10.00');
    const path = `/${channel}/${ctx.organisationId}/events/${event.slug}`;
    const page = await get(path, { referer: 'https://evil.example/' });
    expect(page.status).toBe(200);
    expect(frameAncestors(page)).toBe("'none'");
    const started = await post(path, { token: tokenOf(await page.text()), [`quantity_${event.typeId}`]: '1' });
    expect(started.status).toBe(303);
    const checkout = started.headers.get('location')!;
    expect(frameAncestors(await get(checkout))).toBe("'none'");
    expect((await post(`${checkout}/pay`, GOOD_CARD)).status).toBe(303);
    const order = await client.getOrder({ id: checkout.slice('/checkout/'.length) }, ctx);
    expect(order.salesChannel).toBe(channel);
    expect(order.channelOrigin).toBe(origin);
  });

  it('keeps API checkouts as they were: channel api, no origin, the session id on the order', async () => {
    const event = await backends.eventOnSale(ctx, 10, '10.00');
    const session = await client.createCheckoutSession({ eventIdOrSlug: event.slug, items: [{ ticketTypeId: event.typeId, quantity: 1 }] }, ctx);
    expect((await post(`/checkout/${session.id}/pay`, GOOD_CARD)).status).toBe(303);
    expect(await client.getOrder({ id: session.id! }, ctx)).toMatchObject({ salesChannel: 'api', checkoutSessionId: session.id });
  });
});
