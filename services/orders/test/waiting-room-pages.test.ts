/**
 * The waiting room's sale pages on orders servers in this process (real
 * inventory, tickets, PostgreSQL and Redis): an address that does not
 * decode answers as an unknown event does, and with the orders server's
 * Redis unusable a page without a valid pass answers 503 "try again" at
 * once, while a valid pass still opens the sale (D480); an embedded sale
 * page's cookies are set and cleared as a third-party frame needs.
 */
import type { RequestContext } from '@partner-api/shared';
import { newVisitorId } from '../src/domain/waiting-room';
import { WaitingRoomPasses } from '../src/domain/waiting-room-passes';
import { EMBED_ORIGIN_COOKIE, passCookie, VISITOR_COOKIE } from '../src/web/waiting-room-routes';
import { Backends, newOrganisation } from './support';

jest.setTimeout(60_000);

const PASS_SECRET = 'integration-test-waiting-room-pages-pass-secret';
const passes = new WaitingRoomPasses(PASS_SECRET);
const backends = new Backends();
let ctx: RequestContext;
let event: Awaited<ReturnType<Backends['eventOnSale']>>;

beforeAll(async () => {
  await backends.start();
  ctx = newOrganisation();
  event = await backends.eventOnSale(ctx, 10);
}, 60_000);

afterAll(() => backends.stop());

const send = (base: string, path: string, init: { method?: string; cookie?: string; form?: Record<string, string> } = {}) =>
  fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
const page = async (response: Response) => ({ status: response.status, html: await response.text() });

describe('a sale page address that does not decode', () => {
  let base: string;
  beforeAll(async () => {
    const orders = await backends.startOrders({ WAITING_ROOM_PASS_SECRET: PASS_SECRET });
    base = `http://127.0.0.1:${orders.running.checkoutPort}`;
    // The queue is on: the room, not only the sale page, meets the address.
    await orders.client.setWaitingRoom({ eventIdOrSlug: event.slug, enabled: true, opensAt: new Date(Date.now() + 600_000).toISOString(), rate: '1' }, ctx);
    orders.client.close();
  });

  it.each(['web', 'storefront', 'embed'])('answers the %s channel’s page for an unknown event, never an error', async (channel) => {
    const unknown = await page(await send(base, `/${channel}/${ctx.organisationId}/events/no-such-event`));
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('There is no such event on sale.');
    for (const path of [`/${channel}/%E0%A4%A/events/${event.slug}`, `/${channel}/${ctx.organisationId}/events/%E0%A4%A`, `/${channel}/${ctx.organisationId}/events/%ZZ`]) {
      expect(await page(await send(base, path))).toEqual(unknown);
      expect(await page(await send(base, path, { method: 'POST', form: { token: 'x', quantity_1: '1' } }))).toEqual(unknown);
    }
  });

  it('answers the queue’s poll and rejoin as for an unknown event', async () => {
    const cookie = `${VISITOR_COOKIE}=${newVisitorId()}`;
    const unknownPoll = await page(await send(base, `/web/${ctx.organisationId}/events/no-such-event/queue`, { cookie }));
    const unknownRejoin = await page(await send(base, `/web/${ctx.organisationId}/events/no-such-event/queue/rejoin`, { method: 'POST', cookie }));
    expect(unknownPoll.status).toBe(404);
    expect(unknownRejoin.status).toBe(404);
    expect(await page(await send(base, `/web/${ctx.organisationId}/events/%E0%A4%A/queue`, { cookie }))).toEqual(unknownPoll);
    expect(await page(await send(base, `/web/%E0%A4%A/events/${event.slug}/queue/rejoin`, { method: 'POST', cookie }))).toEqual(unknownRejoin);
  });

  it('answers any other page whose address does not decode with the site’s 404 page', async () => {
    const missing = await page(await send(base, '/no-such-page'));
    expect(missing.status).toBe(404);
    for (const path of ['/checkout/%E0%A4%A', '/waitlist/%E0%A4%A/1', '/my-tickets/order/%E0%A4%A/x']) expect(await page(await send(base, path))).toEqual(missing);
  });
});

describe('the sale pages while the waiting room\'s Redis is unusable', () => {
  let base: string;
  /**
   * Each answer comes within seconds: none waits out Redis' reconnection attempts (ioredis' take about 25 s). Not a
   * latency check (the command timeout is 500 ms; a loaded machine adds its own delays), so the bound is loose.
   */
  const timed = async (path: string, init: Parameters<typeof send>[2] = {}) => {
    const started = Date.now();
    const response = await send(base, path, init);
    expect(Date.now() - started).toBeLessThan(5_000);
    return response;
  };

  beforeAll(async () => {
    // Nothing listens on port 1: every connection is refused. Inventory (holds) keeps the real Redis.
    const orders = await backends.startOrders({ WAITING_ROOM_PASS_SECRET: PASS_SECRET, REDIS_URL: 'redis://127.0.0.1:1' });
    orders.client.close();
    base = `http://127.0.0.1:${orders.running.checkoutPort}`;
  });

  const pagePath = () => `/web/${ctx.organisationId}/events/${event.slug}`;
  const validPass = (visitor: string) => passes.issue({ organisationId: ctx.organisationId, eventId: event.eventId.toString(), visitorId: visitor, expiresAtMs: Date.now() + 600_000 });

  it('answers a page without a pass 503 with Retry-After and a clear page, and the poll likewise', async () => {
    const response = await timed(pagePath());
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const html = await response.text();
    expect(html).toContain('<h1>The queue is busy</h1>');
    expect(html).toContain('Your place is kept: try again in a few seconds.');
    // The visitor keeps the browser id their place is kept under.
    const visitor = /waiting_room_visitor=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    expect(visitor).toBeDefined();

    const poll = await timed(`${pagePath()}/queue`, { cookie: `${VISITOR_COOKIE}=${visitor}` });
    expect(poll.status).toBe(503);
    expect(poll.headers.get('retry-after')).toBe('5');
    expect(await poll.json()).toEqual({ state: 'unavailable', poll_after_ms: 5_000 });
  });

  it('refuses a form without a pass the same way, and holds nothing', async () => {
    const response = await timed(pagePath(), { method: 'POST', form: { token: 'x', [`quantity_${event.typeId}`]: '1' } });
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('The queue is busy');
    expect(await backends.available(ctx, event.slug)).toBe(10);
  });

  it('answers a forged or another browser\'s pass 503 too: only a valid pass is believed without Redis', async () => {
    const visitor = newVisitorId();
    for (const pass of [`${validPass(visitor).slice(0, -2)}AA`, validPass(newVisitorId())]) {
      const response = await timed(pagePath(), { cookie: `${VISITOR_COOKIE}=${visitor}; ${passCookie({ organisationId: ctx.organisationId, eventId: event.eventId.toString() })}=${pass}` });
      expect(response.status).toBe(503);
    }
  });

  it('lets a valid pass through to the sale page and its form, which holds the tickets', async () => {
    const visitor = newVisitorId();
    const cookie = `${VISITOR_COOKIE}=${visitor}; ${passCookie({ organisationId: ctx.organisationId, eventId: event.eventId.toString() })}=${validPass(visitor)}`;
    const shown = await timed(pagePath(), { cookie });
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain('Continue to payment');
    const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
    const sent = await timed(pagePath(), { method: 'POST', cookie, form: { token, [`quantity_${event.typeId}`]: '2' } });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toMatch(/^\/checkout\/[0-9a-f-]{36}$/);
    expect(await backends.available(ctx, event.slug)).toBe(8);
  });
});

describe('the cookies of a sale page served over https', () => {
  const SITE = 'https://shop.example.com';
  let base: string;
  let onSale: Awaited<ReturnType<Backends['eventOnSale']>>;
  /** Its queue opens later: a visitor with a bad pass is refused rather than admitted again. */
  let later: Awaited<ReturnType<Backends['eventOnSale']>>;

  beforeAll(async () => {
    const orders = await backends.startOrders({ WAITING_ROOM_PASS_SECRET: PASS_SECRET, CHECKOUT_BASE_URL: 'https://tickets.example.net' });
    base = `http://127.0.0.1:${orders.running.checkoutPort}`;
    onSale = await backends.eventOnSale(ctx, 10);
    await orders.client.addChannelOrigin({ origin: SITE }, ctx);
    await orders.client.setWaitingRoom({ eventIdOrSlug: onSale.slug, enabled: true, opensAt: new Date(Date.now() - 60_000).toISOString(), rate: '1000' }, ctx);
    later = await backends.eventOnSale(ctx, 10);
    await orders.client.setWaitingRoom({ eventIdOrSlug: later.slug, enabled: true, opensAt: new Date(Date.now() + 600_000).toISOString(), rate: '1000' }, ctx);
    orders.client.close();
  });

  /** Each Set-Cookie of the response by name: its attributes, lower-cased. */
  const cookiesOf = (response: Response) =>
    new Map(response.headers.getSetCookie().map((line) => [line.split('=')[0]!, line.split(';').slice(1).map((part) => part.trim().toLowerCase())]));
  const room = (event = onSale) => ({ organisationId: ctx.organisationId, eventId: event.eventId.toString() });
  const forged = (visitor: string) => `${passes.issue({ ...room(later), visitorId: visitor, expiresAtMs: Date.now() + 600_000 }).slice(0, -2)}AA`;

  it('sets and clears an embedded page’s cookies as third-party ones: SameSite=None, Secure, Partitioned', async () => {
    const framed = { referer: `${SITE}/tickets` };
    const admitted = await fetch(`${base}/embed/${ctx.organisationId}/events/${onSale.slug}`, { headers: framed, redirect: 'manual' });
    expect(admitted.status).toBe(200);
    const set = cookiesOf(admitted);
    expect([...set.keys()].sort()).toEqual([EMBED_ORIGIN_COOKIE, VISITOR_COOKIE, passCookie(room())].sort());
    for (const attributes of set.values()) expect(attributes).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite=none', 'partitioned', 'path=/']));

    // A refused pass is cleared with the same attributes: a bare clear is refused inside a frame, and the pass would stay.
    const visitor = /waiting_room_visitor=([^;]+)/.exec(admitted.headers.getSetCookie().join(';'))![1]!;
    const cookie = `${VISITOR_COOKIE}=${visitor}; ${passCookie(room(later))}=${forged(visitor)}`;
    const refused = await fetch(`${base}/embed/${ctx.organisationId}/events/${later.slug}`, { headers: { ...framed, cookie }, redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(cookiesOf(refused).get(passCookie(room(later)))).toEqual(expect.arrayContaining(['expires=thu, 01 jan 1970 00:00:00 gmt', 'httponly', 'secure', 'samesite=none', 'partitioned', 'path=/']));
    const rejoined = await fetch(`${base}/embed/${ctx.organisationId}/events/${later.slug}/queue/rejoin`, { method: 'POST', headers: { ...framed, cookie }, redirect: 'manual' });
    expect(rejoined.status).toBe(303);
    expect(cookiesOf(rejoined).get(passCookie(room(later)))).toEqual(expect.arrayContaining(['expires=thu, 01 jan 1970 00:00:00 gmt', 'secure', 'samesite=none', 'partitioned']));
  });

  it('keeps the web page’s cookies first-party: SameSite=Lax, Secure, not partitioned', async () => {
    const page = await fetch(`${base}/web/${ctx.organisationId}/events/${onSale.slug}`, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const set = cookiesOf(page);
    expect([...set.keys()].sort()).toEqual([VISITOR_COOKIE, passCookie(room())].sort());
    for (const attributes of set.values()) {
      expect(attributes).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite=lax']));
      expect(attributes).not.toContain('partitioned');
    }
    const visitor = /waiting_room_visitor=([^;]+)/.exec(page.headers.getSetCookie().join(';'))![1]!;
    const refused = await fetch(`${base}/web/${ctx.organisationId}/events/${later.slug}`, { headers: { cookie: `${VISITOR_COOKIE}=${visitor}; ${passCookie(room(later))}=${forged(visitor)}` }, redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(cookiesOf(refused).get(passCookie(room(later)))).toEqual(expect.arrayContaining(['expires=thu, 01 jan 1970 00:00:00 gmt', 'secure', 'samesite=lax']));
  });
});
