/**
 * The dashboard's waiting room pages against real inventory, tickets and
 * orders servers in this process (PostgreSQL, Redis, Kafka): an event's
 * queue set from its form (the opening time on the event's clock), the
 * counts as visitors join, are admitted and use their passes on the real
 * sale pages, refusals that change nothing, roles, test mode and another
 * organisation's event.
 */
import { randomBase62, type RequestContext } from '@partner-api/shared';
import { Backends } from '../../orders/test/support';
import { DashboardSuite } from './support';

jest.setTimeout(90_000);

const backends = new Backends();
const suite = new DashboardSuite();
let orders: Awaited<ReturnType<Backends['startOrders']>>;

beforeAll(async () => {
  await backends.start();
  orders = await backends.startOrders();
  await suite.start({ ORDERS_GRPC_ADDR: `127.0.0.1:${orders.running.runtime.grpcPort}`, TICKETS_GRPC_ADDR: backends.ticketsAddr, INVENTORY_GRPC_ADDR: backends.inventoryAddr });
}, 90_000);

afterAll(async () => {
  await suite.stop();
  orders?.client.close();
  await backends.stop();
});

const contextOf = (organisationId: number): RequestContext => ({ organisationId, mode: 'live', keyId: 0, requestId: `it-${randomBase62(8)}` });

/** A published event on Sydney's clock with one ticket type, in a new organisation whose owner is signed in. */
async function organisationWithEvent() {
  const org = await suite.organisation();
  const ctx = contextOf(org.id);
  const owner = await suite.signedInMember(org.id);
  const slug = `queue-${randomBase62(10).toLowerCase()}`;
  const event = await backends.inventoryClient.upsertEvent({ fields: { slug, title: 'Queue Night', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await backends.inventoryClient.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: 50n } }, ctx);
  const type = await backends.inventoryClient.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '30.00', bookingFee: '0.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await backends.inventoryClient.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { org, ctx, owner, eventId: String(event.id), typeId: String(type.id) };
}

const room = (ctx: RequestContext, eventId: string) => orders.client.getWaitingRoom({ eventIdOrSlug: eventId }, ctx);
const auditRows = async (organisationId: number) =>
  (await suite.db.query<{ target: string; detail: Record<string, unknown> }>("SELECT target, detail FROM audit_events WHERE organisation_id = $1 AND action = 'waiting_room.set' ORDER BY id", [organisationId])).rows;
const figure = (html: string, testId: string) => new RegExp(`data-testid="${testId}">([^<]*)<`).exec(html)?.[1];

/** A visitor's browser on the orders' sale page: its cookies kept, its own address. */
class SalePageVisitor {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly url: string) {}

  async send(form?: Record<string, string>): Promise<{ status: number; html: string }> {
    const response = await fetch(this.url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [name, value] = line.split(';')[0]!.split('=');
      this.cookies.set(name!, value!);
    }
    return { status: response.status, html: await response.text() };
  }
}

describe('the waiting room pages', () => {
  it('sets an event’s queue from its form, on the event’s clock, and records who did', async () => {
    const { org, ctx, owner, eventId } = await organisationWithEvent();
    const list = await owner.browser.get('/waiting-room');
    expect(list.status).toBe(200);
    expect(list.html).toMatch(/<a href="\/waiting-room" aria-current="page">Waiting room<\/a>/);
    expect(list.html).toMatch(new RegExp(`data-event-id="${eventId}"[\\s\\S]*?not set up`));

    const page = await owner.browser.get(`/waiting-room/${eventId}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Australia/Sydney');
    const saved = await owner.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, { enabled: 'on', opens_at: '2030-12-01T09:00', rate_kind: 'fixed', rate: '12.5' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/waiting-room/${eventId}?done=waiting_room_saved`);
    expect(await room(ctx, eventId)).toMatchObject({ enabled: true, opensAt: '2030-11-30T22:00:00.000Z', rate: '12.5', currentRate: 12.5 });

    const shown = await owner.browser.get(saved.location!);
    expect(shown.html).toContain('The waiting room is saved');
    expect(figure(shown.html, 'queue-state')).toBe('on');
    expect(shown.html).toContain('value="2030-12-01T09:00"');
    expect(shown.html).toMatch(/value="fixed" checked/);
    expect(figure(shown.html, 'current-rate')).toBe('12.5 / s');

    // Automatic, and off: the time kept as typed.
    expect((await owner.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, { enabled: 'off', opens_at: '2030-12-01T09:00', rate_kind: 'automatic', rate: '12.5' })).status).toBe(303);
    expect(await room(ctx, eventId)).toMatchObject({ enabled: false, opensAt: '2030-11-30T22:00:00.000Z', rate: 'automatic' });
    expect(await auditRows(org.id)).toEqual([
      { target: `event ${eventId}`, detail: { enabled: true, opens_at: '2030-11-30T22:00:00.000Z', rate: '12.5' } },
      { target: `event ${eventId}`, detail: { enabled: false, opens_at: '2030-11-30T22:00:00.000Z', rate: 'automatic' } },
    ]);
  });

  it('shows visitors waiting, admitted and passes used as they come through the sale page', async () => {
    const { org, owner, eventId, typeId } = await organisationWithEvent();
    // Opened hours ago, a turn every 100 s: the first visitor to the empty line is admitted at once, the others wait (D472).
    const opened = new Date(Date.now() - 3 * 3_600_000).toLocaleString('sv-SE', { timeZone: 'Australia/Sydney' }).replace(' ', 'T').slice(0, 16);
    expect((await owner.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, { enabled: 'on', opens_at: opened, rate_kind: 'fixed', rate: '0.01' })).status).toBe(303);

    const salePage = `http://127.0.0.1:${orders.running.checkoutPort}/web/${org.id}/events/${eventId}`;
    const visitors = [0, 1, 2].map(() => new SalePageVisitor(salePage));
    const first = await visitors[0]!.send();
    expect(first.html).toContain('Continue to payment');
    for (const visitor of visitors.slice(1)) expect((await visitor.send()).html).toContain('Do not refresh');

    let page = await owner.browser.get(`/waiting-room/${eventId}`);
    expect([figure(page.html, 'waiting'), figure(page.html, 'admitted'), figure(page.html, 'passes-used'), figure(page.html, 'current-rate')]).toEqual(['2', '1', '0', '0.01 / s']);

    const token = /name="token" value="([^"]+)"/.exec(first.html)![1]!;
    expect((await visitors[0]!.send({ token, [`quantity_${typeId}`]: '1' })).status).toBe(303);
    page = await owner.browser.get(`/waiting-room/${eventId}`);
    expect(figure(page.html, 'passes-used')).toBe('1');
    const list = await owner.browser.get('/waiting-room');
    const row = new RegExp(`data-event-id="${eventId}"[\\s\\S]*?</tr>`).exec(list.html)![0];
    expect([figure(row, 'queue-state'), figure(row, 'waiting'), figure(row, 'admitted'), figure(row, 'passes-used')]).toEqual(['on', '2', '1', '1']);
  });

  it('refuses a bad time or rate on the form, naming the field, and changes nothing', async () => {
    const { ctx, owner, eventId } = await organisationWithEvent();
    const before = await room(ctx, eventId);
    const send = (fields: Record<string, string>) => owner.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, fields);

    const badTime = await send({ enabled: 'on', opens_at: 'next friday', rate_kind: 'automatic' });
    expect(badTime.status).toBe(400);
    expect(badTime.html).toContain('Enter when the queue opens');
    expect(badTime.html).toMatch(/id="opens_at"[^>]*aria-invalid="true"/);
    expect(badTime.html).toContain('value="next friday"');
    // Sydney's clocks skip 2:00 to 3:00 on 4 October 2026.
    const skipped = await send({ enabled: 'on', opens_at: '2026-10-04T02:30', rate_kind: 'automatic' });
    expect(skipped.status).toBe(400);
    expect(skipped.html).toContain('does not happen in Australia/Sydney');
    // Orders' own rule on the rate, shown on its field.
    const zero = await send({ enabled: 'on', opens_at: '2030-12-01T09:00', rate_kind: 'fixed', rate: '0' });
    expect(zero.status).toBe(400);
    expect(zero.html).toContain('rate must be');
    expect(zero.html).toMatch(/id="rate"[^>]*aria-invalid="true"/);
    const missing = await send({ enabled: 'on', opens_at: '2030-12-01T09:00', rate_kind: 'fixed', rate: '' });
    expect(missing.status).toBe(400);
    expect(missing.html).toContain('Enter how many visitors a second');

    expect(await room(ctx, eventId)).toEqual(before);
    expect(before.enabled).toBe(false);
  });

  it('lets developers look but not change, keeps door staff out, changes nothing in test mode, and hides other organisations’ events', async () => {
    const { org, ctx, owner, eventId } = await organisationWithEvent();
    const fields = { enabled: 'on', opens_at: '2030-12-01T09:00', rate_kind: 'automatic' };

    const developer = await suite.signedInMember(org.id, 'developer');
    const looked = await developer.browser.get(`/waiting-room/${eventId}`);
    expect(looked.status).toBe(200);
    expect(looked.html).not.toContain(`action="/waiting-room/${eventId}"`);
    expect((await developer.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, fields)).status).toBe(403);
    const door = await suite.signedInMember(org.id, 'door_staff');
    expect((await door.browser.get('/waiting-room')).status).toBe(403);
    expect((await door.browser.get('/door')).html).not.toContain('href="/waiting-room"');

    const admin = await suite.signedInMember(org.id, 'admin');
    expect((await admin.browser.submit('/waiting-room', '/mode', { mode: 'test', return_to: '/waiting-room' })).status).toBe(303);
    const inTest = await admin.browser.get(`/waiting-room/${eventId}`);
    expect(inTest.html).toContain('Switch to live data to change the waiting room');
    const refused = await admin.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${eventId}`, fields);
    expect(refused.status).toBe(409);
    expect((await room(ctx, eventId)).enabled).toBe(false);

    const other = await organisationWithEvent();
    expect((await owner.browser.get(`/waiting-room/${other.eventId}`)).status).toBe(404);
    expect((await owner.browser.submit(`/waiting-room/${eventId}`, `/waiting-room/${other.eventId}`, fields)).status).toBe(404);
    expect((await owner.browser.get('/waiting-room/not-an-event')).status).toBe(404);
    expect((await room(other.ctx, other.eventId)).enabled).toBe(false);
    // A form without its CSRF token is refused before it is read.
    expect((await owner.browser.request('POST', `/waiting-room/${eventId}`, fields)).status).toBe(403);
    expect(await auditRows(org.id)).toEqual([]);
  });
});
