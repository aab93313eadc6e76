/**
 * The waiting room's sale pages on orders servers in this process (real
 * inventory, tickets, PostgreSQL and Redis): an address that does not
 * decode answers as an unknown event does.
 */
import type { RequestContext } from '@partner-api/shared';
import { newVisitorId } from '../src/domain/waiting-room';
import { VISITOR_COOKIE } from '../src/web/waiting-room-routes';
import { Backends, newOrganisation } from './support';

jest.setTimeout(60_000);

const PASS_SECRET = 'integration-test-waiting-room-pages-pass-secret';
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
