/**
 * The waiting room in front of the sale pages, on the running stack: set up
 * with partnerctl; in Chromium a visitor waits, sees their position fall,
 * is admitted and buys through the hosted checkout while a second browser
 * without a pass is held; forged, expired, copied and other events' passes
 * answer clear pages; one address takes a limited number of passes; the
 * waiting page passes axe and fits a 390 px phone.
 */
import type { Browser } from 'playwright-core';
import { env } from './support/api';
import { launchBrowser } from './support/browser';
import { runClientAddress } from './support/client-address';
import { GOOD_CARD, testId } from './support/hosted-checkout';
import { inventoryClient, operatorContext, ordersClient, publishedEvent, type InventoryClient, type OrdersClient } from './support/operator';
import { keepScreenshot, problemsOf, VIEWPORTS } from './support/page-checks';
import { expectRefused, jsonLines, partnerctl } from './support/partnerctl';
import { WaitingRoomPasses } from '../services/orders/src/domain/waiting-room-passes';

/** The local stack's orders run with the development pass secret (production refuses it). */
const DEVELOPMENT_PASSES = new WaitingRoomPasses(process.env.WAITING_ROOM_PASS_SECRET ?? 'local-development-waiting-room-pass-secret');

let browser: Browser;
let inventory: InventoryClient;
let orders: OrdersClient;
/** The demo organisation: each test makes events of its own in it. */
let org: { id: number };

const site = () => `http://${new URL(env('BASE_URL')).hostname}:4100`;
const salePage = (slug: string, channel = 'web') => `${site()}/${channel}/${org.id}/events/${slug}`;

interface Room {
  object: string;
  event_id: number;
  enabled: boolean;
  rate: string;
  joined: number;
  admitted: number;
  passes_used: number;
}

async function setRoom(slug: string, ...options: string[]): Promise<Room> {
  const run = await partnerctl('waiting-room', 'set', slug, '--org', String(org.id), ...options);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return jsonLines<Room>(run)[0]!;
}

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

/** Sets a room as the CLI does, through the orders service directly: a CLI process takes seconds to start on a busy machine. */
async function configure(slug: string, opensInSeconds: number, rate: string): Promise<void> {
  await orders.setWaitingRoom({ eventIdOrSlug: slug, enabled: true, opensAt: inSeconds(opensInSeconds), rate }, operatorContext(org.id));
}

/** A browser without scripts: its own cookies and its own address. */
class Visitor {
  readonly cookies = new Map<string, string>();
  constructor(readonly address: string = runClientAddress()) {}

  async request(url: string, init: RequestInit = {}): Promise<{ status: number; html: string; location: string | null }> {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': this.address, cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/.test(line)) this.cookies.delete(name!);
      else this.cookies.set(name!, value!);
    }
    return { status: response.status, html: await response.text(), location: response.headers.get('location') };
  }

  passCookie(): [string, string] {
    const entry = [...this.cookies].find(([name]) => name.startsWith('waiting_room_pass_'));
    if (!entry) throw new Error('no pass');
    return entry;
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  inventory = inventoryClient();
  orders = ordersClient();
  org = { id: Number(env('DEMO_ORGANISATION_ID')) };
}, 90_000);

afterAll(async () => {
  await browser?.close();
  inventory?.close();
  orders?.close();
});

describe('partnerctl waiting-room', () => {
  it('sets and shows an event\'s queue, and refuses bad settings with one clear line', async () => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-cli', title: 'Queue CLI Night', capacity: 10 });
    expectRefused(await partnerctl('waiting-room', 'set', event.slug, '--org', String(org.id), '--on'), /--opens-at is required/);
    expectRefused(await partnerctl('waiting-room', 'set', event.slug, '--org', String(org.id), '--on', '--opens-at', inSeconds(60), '--rate', '0'), /rate must be "automatic" or a number/);
    expectRefused(await partnerctl('waiting-room', 'set', 'no-such-event', '--org', String(org.id), '--on', '--opens-at', inSeconds(60)), /No such event/);

    expect(await setRoom(event.slug, '--on', '--opens-at', inSeconds(60), '--rate', '12.5')).toMatchObject({ object: 'waiting_room', enabled: true, rate: '12.5', joined: 0 });
    const shown = await partnerctl('waiting-room', 'show', event.slug, '--org', String(org.id));
    expect(jsonLines<Room>(shown)[0]).toMatchObject({ enabled: true, rate: '12.5', admitted: 0, passes_used: 0 });
    expect(await setRoom(event.slug, '--off')).toMatchObject({ enabled: false, rate: '12.5' });
  }, 180_000);
});

describe('the sale pages behind a queue', () => {
  it('lets everyone straight through while the queue is off', async () => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-off', title: 'No Queue Night', capacity: 10 });
    const page = await new Visitor().request(salePage(event.slug));
    expect(page.status).toBe(200);
    expect(page.html).toContain('Continue to payment');
  });

  it('holds visitors with a countdown before the opening, then shows their place', async () => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-early', title: 'Early Night', capacity: 10 });
    await configure(event.slug, 600, '0.2');
    const early = new Visitor();
    const before = await early.request(salePage(event.slug, 'storefront'));
    expect(before.status).toBe(200);
    expect(before.html).toContain('The sale opens in');
    expect(testId(before.html, 'keep-place')).toMatch(/Do not refresh: you keep your place/);
    expect(before.html).not.toContain('Continue to payment');
    // The organiser brings the opening forward to now.
    await configure(event.slug, 0, '0.2');
    // A refresh keeps the place; a late visitor stands behind.
    const status = await early.request(`${salePage(event.slug, 'storefront')}/queue`, { headers: { accept: 'application/json' } });
    const late = new Visitor();
    await late.request(salePage(event.slug, 'storefront'));
    const lateStatus = JSON.parse((await late.request(`${salePage(event.slug, 'storefront')}/queue`)).html) as { state: string; position: number };
    const earlyStatus = JSON.parse(status.html) as { state: string; position?: number };
    expect(['waiting', 'admitted']).toContain(earlyStatus.state);
    expect(lateStatus.state).toBe('waiting');
    expect(lateStatus.position).toBeGreaterThanOrEqual(1);
    if (earlyStatus.state === 'waiting') expect(lateStatus.position).toBeGreaterThan(earlyStatus.position!);
  }, 30_000);

  it('in Chromium: a visitor watches their place fall, is admitted and buys; a second browser without a pass is held', async () => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-buy', title: 'Queue Night', capacity: 20 });
    // One visitor every 4 s.
    await configure(event.slug, 0, '0.25');
    // Four visitors ahead, who will not come back for their turns.
    for (let i = 0; i < 4; i += 1) await new Visitor().request(salePage(event.slug));
    const buyer = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } });
    const held = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } });
    try {
      const page = await buyer.newPage();
      await page.goto(salePage(event.slug));
      const positions: number[] = [];
      const first = await page.getByTestId('position').textContent({ timeout: 2_000 }).catch(() => null);
      if (first) positions.push(Number(first));
      const heldPage = await held.newPage();
      await heldPage.goto(salePage(event.slug));
      expect(await heldPage.getByTestId('keep-place').isVisible()).toBe(true);
      // The held browser cannot send the sale's form without a pass.
      const refused = await heldPage.request.post(salePage(event.slug), { form: { quantity_1: '1' }, maxRedirects: 0 });
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('You need a pass for this sale');

      // The page updates itself until the turn comes, then shows the tickets.
      while (!(await page.getByRole('button', { name: 'Continue to payment' }).isVisible())) {
        const shown = await page.getByTestId('position').textContent({ timeout: 1_000 }).catch(() => null);
        if (shown && Number(shown) !== positions.at(-1)) positions.push(Number(shown));
        await page.waitForTimeout(250);
        if (positions.length > 30) throw new Error('never admitted');
      }
      expect(positions.length).toBeGreaterThanOrEqual(2);
      expect([...positions].sort((a, b) => b - a)).toEqual(positions);
      await page.getByLabel('GA').fill('2');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.getByLabel('Email').fill('queue@example.com');
      await page.getByLabel('Name on card').fill(GOOD_CARD.card_name);
      await page.getByLabel('Card number').fill(GOOD_CARD.card_number);
      await page.getByLabel(/^Expiry/).fill(GOOD_CARD.card_expiry);
      await page.getByLabel('Security code').fill(GOOD_CARD.card_cvc);
      await page.getByRole('button', { name: /^Pay/ }).click();
      await page.getByTestId('confirmation').waitFor({ timeout: 30_000 });

      const shown = jsonLines<Room>(await partnerctl('waiting-room', 'show', event.slug, '--org', String(org.id)))[0]!;
      expect(shown.passes_used).toBe(1);
      expect(shown.joined).toBe(6);
    } finally {
      await buyer.close();
      await held.close();
    }
  }, 90_000);

  it('answers a forged, expired, copied or other event\'s pass with a clear page', async () => {
    const [one, other] = [
      await publishedEvent(inventory, org.id, { slugPrefix: 'queue-a', title: 'Pass Night A', capacity: 10 }),
      await publishedEvent(inventory, org.id, { slugPrefix: 'queue-b', title: 'Pass Night B', capacity: 10 }),
    ];
    await configure(one.slug, -60, '1000');
    await configure(other.slug, 3_600, '1');
    const admitted = new Visitor();
    const first = await admitted.request(salePage(one.slug));
    expect(first.status).toBe(200);
    expect(first.html).toContain('Continue to payment');
    const [name, pass] = admitted.passCookie();
    const eventId = name.split('_').pop()!;
    const visitorId = admitted.cookies.get('waiting_room_visitor')!;
    // From now on newcomers wait.
    await configure(one.slug, -60, '0.001');

    // A copy of the pass in another browser.
    const copier = new Visitor();
    copier.cookies.set(name, pass);
    const copied = await copier.request(salePage(one.slug), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'quantity_1=1' });
    expect(copied.status).toBe(403);
    expect(testId(copied.html, 'error')).toMatch(/works only in the browser that waited/);

    // Event A's pass under event B's name.
    const otherEventId = (await inventory.getEvent({ idOrSlug: other.slug }, { organisationId: org.id, mode: 'live', keyId: 0, requestId: 'queue-test' })).id.toString();
    const crossing = new Visitor(admitted.address);
    crossing.cookies.set('waiting_room_visitor', visitorId);
    crossing.cookies.set(`waiting_room_pass_${org.id}_${otherEventId}`, pass);
    const crossed = await crossing.request(salePage(other.slug));
    expect(crossed.status).toBe(403);
    expect(testId(crossed.html, 'error')).toMatch(/opens only the event it was issued for/);
    expect(crossed.html).not.toContain('Continue to payment');

    // A forged signature.
    const forger = new Visitor(admitted.address);
    forger.cookies.set('waiting_room_visitor', visitorId);
    forger.cookies.set(`waiting_room_pass_${org.id}_${otherEventId}`, DEVELOPMENT_PASSES.issue({ organisationId: org.id, eventId: otherEventId, visitorId, expiresAtMs: Date.now() + 60_000 }).replace(/.{4}$/, 'AAAA'));
    const forged = await forger.request(salePage(other.slug));
    expect(forged.status).toBe(403);
    expect(testId(forged.html, 'error')).toMatch(/was not issued by us/);
    expect(forged.html).not.toMatch(/at .*\.js:\d+/);

    // An expired pass, signed as the service signs.
    const late = new Visitor();
    await late.request(salePage(one.slug));
    const lateVisitor = late.cookies.get('waiting_room_visitor')!;
    late.cookies.set(name, DEVELOPMENT_PASSES.issue({ organisationId: org.id, eventId, visitorId: lateVisitor, expiresAtMs: Date.now() - 1_000 }));
    const expired = await late.request(salePage(one.slug), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'quantity_1=1' });
    expect(expired.status).toBe(403);
    expect(testId(expired.html, 'error')).toMatch(/Passes last a limited time/);
    expect(late.cookies.has(name)).toBe(false);
  }, 60_000);

  it('limits the passes one address takes for an event', async () => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-limit', title: 'Limit Night', capacity: 10 });
    await configure(event.slug, -60, '1000');
    const address = runClientAddress();
    const statuses = [];
    // The local stack allows 20 passes per address and event an hour.
    for (let i = 0; i < 21; i += 1) statuses.push((await new Visitor(address).request(salePage(event.slug))).status);
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    expect((await new Visitor().request(salePage(event.slug))).status).toBe(200);
  }, 60_000);
});

describe.each(VIEWPORTS)('the waiting room\'s pages at $width×$height', (viewport) => {
  it.each(['before_opening', 'waiting', 'refused'] as const)('%s passes axe and fits the screen', async (state) => {
    const event = await publishedEvent(inventory, org.id, { slugPrefix: 'queue-page', title: 'Queue Page Night With A Rather Long Title For Phones', capacity: 10 });
    await configure(event.slug, state === 'before_opening' ? 3_600 : -1, state === 'before_opening' ? '1' : '0.001');
    const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } });
    try {
      const page = await context.newPage();
      if (state === 'waiting') await new Visitor().request(salePage(event.slug)); // someone ahead
      if (state === 'refused') await context.addCookies([{ name: `waiting_room_pass_${org.id}_1`, value: 'p1.forged', url: site() }]);
      await page.goto(salePage(event.slug));
      if (state === 'refused') {
        const response = await page.request.post(salePage(event.slug), { form: { quantity_1: '1' } });
        await page.setContent(await response.text());
      }
      await keepScreenshot(page, `waiting-room-${state}-${viewport.name}`);
      expect(await problemsOf(page)).toEqual({ violations: [], overflow: 0 });
    } finally {
      await context.close();
    }
  }, 30_000);
});
