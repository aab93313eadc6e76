/**
 * Every page customers see on the hosted checkout's site (port 4100) and
 * every dashboard page organisers see (port 4200), in Chromium at
 * 1280×800 and 390×844: axe-core finds no serious or critical violation,
 * each page has its main landmark with everything inside landmarks, and
 * nothing is wider than the screen. Screenshots go to .data/screenshots.
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { api, env } from './support/api';
import { launchBrowser } from './support/browser';
import { runClientAddress } from './support/client-address';
import { addMember, DASHBOARD_URL, MEMBER_PASSWORD } from './support/dashboard';
import { DECLINED_CARD, GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { keepScreenshot, problemsOf, VIEWPORTS } from './support/page-checks';
import { inventoryClient, newOrganisation, operatorContext, publishedEvent, uniqueSlug, type InventoryClient } from './support/operator';
import { Receiver, waitFor } from '../services/webhooks/test/support';

let browser: Browser;
let inventory: InventoryClient;
let org: { id: number; key: string };
let receiver: Receiver;

const site = () => `http://${new URL(env('BASE_URL')).hostname}:4100`;

interface Customer {
  checkoutUrl: string;
  paidUrl: string;
  onSale: { slug: string };
  soldOut: { slug: string; eventId: string };
}
let customer: Customer;

async function newSession(slug: string, typeId: bigint, quantity = 1): Promise<string> {
  const created = await api<{ checkout_url: string }>('/checkout_sessions', { key: org.key, method: 'POST', body: { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity }] } });
  expect(created.status).toBe(201);
  return created.body.checkout_url;
}

beforeAll(async () => {
  browser = await launchBrowser();
  inventory = inventoryClient();
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'webhooks:manage']);
  const onSale = await publishedEvent(inventory, org.id, { slugPrefix: 'pages', title: 'Pages Night', capacity: 100 });
  const soldOut = await soldOutEvent();
  const paidUrl = await newSession(onSale.slug, onSale.typeId);
  // 303 to the confirmation, or 202 while the order is still being made (a busy machine): either way, wait for the order.
  expect([202, 303]).toContain((await payCheckout(paidUrl, { email: 'ann@example.com', ...GOOD_CARD })).status);
  const paidId = new URL(paidUrl).pathname.split('/').pop()!;
  await waitFor(async () => (await api<{ status: string }>(`/checkout_sessions/${paidId}`, { key: org.key })).body.status === 'completed', 30_000, 'the paid session to complete');
  // A partner's checkout holds the only ticket: sold out.
  await newSession(soldOut.slug, soldOut.typeId);
  customer = { checkoutUrl: await newSession(onSale.slug, onSale.typeId, 2), paidUrl, onSale, soldOut };
  organiser = await organiserData(paidUrl);
}, 90_000); // Chromium's launch and the catalog set-up can each take seconds on a busy machine

/** An event whose one ticket type has a name as long as real ones get (the waiting list's choice must still fit a phone). */
async function soldOutEvent(): Promise<{ slug: string; typeId: bigint; eventId: string }> {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('pages-sold');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Sold Out Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Brisbane' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 1n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'General admission standing, front section', price: '40.00', bookingFee: '0.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, typeId: type.id, eventId: String(event.id) };
}

afterAll(async () => {
  await browser?.close();
  inventory?.close();
  await receiver?.stop();
});

interface PageVisit {
  name: string;
  /** Opens the page (and fills what it takes to reach it) in a fresh tab of the viewport's size. */
  open(page: Page): Promise<unknown>;
}

const fillCard = async (page: Page, card: typeof GOOD_CARD) => {
  await page.getByLabel('Email').fill('robin@example.com');
  await page.getByLabel('Name on card').fill(card.card_name);
  await page.getByLabel('Card number').fill(card.card_number);
  await page.getByLabel(/^Expiry/).fill(card.card_expiry);
  await page.getByLabel('Security code').fill(card.card_cvc);
};

const HOSTED_PAGES: PageVisit[] = [
  { name: 'checkout', open: (page) => page.goto(customer.checkoutUrl) },
  {
    name: 'checkout-declined',
    open: async (page) => {
      await page.goto(customer.checkoutUrl);
      await fillCard(page, DECLINED_CARD);
      await page.getByRole('button', { name: /^Pay/ }).click();
      await page.getByTestId('error').waitFor();
    },
  },
  {
    name: 'checkout-invalid',
    open: async (page) => {
      await page.goto(customer.checkoutUrl);
      await fillCard(page, { ...GOOD_CARD, card_expiry: '13/99' });
      await page.getByRole('button', { name: /^Pay/ }).click();
      await page.getByTestId('error').waitFor();
    },
  },
  { name: 'checkout-confirmed', open: (page) => page.goto(customer.paidUrl) },
  { name: 'checkout-not-found', open: (page) => page.goto(`${site()}/checkout/00000000-0000-4000-8000-000000000000`) },
  { name: 'web-event', open: (page) => page.goto(`${site()}/web/${org.id}/events/${customer.onSale.slug}`) },
  { name: 'web-event-sold-out', open: (page) => page.goto(`${site()}/web/${org.id}/events/${customer.soldOut.slug}`) },
  { name: 'storefront-event', open: (page) => page.goto(`${site()}/storefront/${org.id}/events/${customer.onSale.slug}`) },
  {
    name: 'web-event-invalid',
    open: async (page) => {
      await page.goto(`${site()}/web/${org.id}/events/${customer.onSale.slug}`);
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.getByTestId('error').waitFor();
    },
  },
  { name: 'waitlist', open: (page) => page.goto(`${site()}/waitlist/${org.id}/${customer.soldOut.eventId}`) },
  {
    name: 'waitlist-joined',
    open: async (page) => {
      await page.goto(`${site()}/waitlist/${org.id}/${customer.soldOut.eventId}`);
      await page.getByLabel('Email').fill(`pages-${Math.random().toString(36).slice(2)}@example.com`);
      await page.getByRole('button', { name: 'Join the waiting list' }).click();
      await page.getByTestId('joined').waitFor();
    },
  },
  { name: 'waitlist-offer-ended', open: (page) => page.goto(`${site()}/waitlist/${org.id}/offers/00000000-0000-4000-8000-000000000000`) },
  { name: 'not-found', open: (page) => page.goto(`${site()}/no-such-page`) },
];

describe.each(VIEWPORTS)('hosted pages at $width×$height', (viewport) => {
  it.each(HOSTED_PAGES)('$name passes axe and fits the screen', async ({ name, open }) => {
    // Waiting-list joins count per address: this run's own.
    const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } });
    try {
      await checkPage(await context.newPage(), `hosted-${name}`, viewport, open);
    } finally {
      await context.close();
    }
  }, 30_000);
});

interface Organiser {
  owner: { email: string };
  orderId: string;
  ticketId: number;
  endpointId: number;
  eventId: string;
  doorEventId: string;
}
let organiser: Organiser;

/** The organisation's owner, its paid order, an endpoint with a delivered test send, and the ids the pages need. */
async function organiserData(paidUrl: string): Promise<Organiser> {
  const owner = await addMember(org.id, 'owner');
  receiver = await new Receiver().start();
  const endpoint = await api<{ id: number }>('/webhook_endpoints', { method: 'POST', key: org.key, body: { url: `${receiver.url}/hooks`, event_types: ['order.completed'], description: 'Pages suite' } });
  expect(endpoint.status).toBe(201);
  const sent = await api<{ event_id: string }>(`/webhook_endpoints/${endpoint.body.id}/test`, { method: 'POST', key: org.key, body: {} });
  expect(sent.status).toBe(200);
  const sessionId = new URL(paidUrl).pathname.split('/').pop()!;
  const session = await api<{ order_id: string }>(`/checkout_sessions/${sessionId}`, { key: org.key });
  const order = await api<{ id: string; event_id: number; tickets: Array<{ id: number }> }>(`/orders/${session.body.order_id}`, { key: org.key });
  return { owner, orderId: order.body.id, ticketId: order.body.tickets[0]!.id, endpointId: endpoint.body.id, eventId: sent.body.event_id, doorEventId: String(order.body.event_id) };
}

const dashboardVisitor = (viewport: (typeof VIEWPORTS)[number]): BrowserContextOptions => ({
  baseURL: DASHBOARD_URL,
  viewport,
  // Sign-ins count per address: this run's own.
  extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() },
});

const DASHBOARD_SIGNED_OUT: PageVisit[] = [
  { name: 'sign-in', open: (page) => page.goto('/sign-in') },
  {
    name: 'sign-in-refused',
    open: async (page) => {
      await page.goto('/sign-in');
      await page.getByLabel('Email', { exact: true }).fill('nobody@example.com');
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('error').waitFor();
    },
  },
  { name: 'sign-in-link', open: (page) => page.goto('/sign-in/link/not-a-real-token') },
  { name: 'invitation-not-valid', open: (page) => page.goto('/invitations/not-a-real-token') },
];

const DASHBOARD_SIGNED_IN: PageVisit[] = [
  { name: 'keys', open: (page) => page.goto('/keys') },
  {
    name: 'keys-created',
    open: async (page) => {
      await page.goto('/keys');
      await page.getByLabel('Name', { exact: false }).first().fill('Pages suite');
      await page.getByRole('button', { name: 'Create live key' }).click();
      await page.getByTestId('secret').waitFor();
    },
  },
  {
    name: 'key',
    open: async (page) => {
      await page.goto('/keys');
      await page.locator('tr[data-key-id]').first().getByRole('link', { name: /^Manage/ }).click();
    },
  },
  { name: 'webhooks', open: (page) => page.goto('/webhooks') },
  { name: 'webhook', open: (page) => page.goto(`/webhooks/${organiser.endpointId}`) },
  { name: 'webhook-event', open: (page) => page.goto(`/webhooks/events/${organiser.eventId}`) },
  { name: 'orders', open: (page) => page.goto('/orders') },
  { name: 'order', open: (page) => page.goto(`/orders/${organiser.orderId}`) },
  { name: 'order-refund', open: (page) => page.goto(`/orders/${organiser.orderId}/refund?scope=all`) },
  { name: 'ticket-transfer', open: (page) => page.goto(`/orders/${organiser.orderId}/tickets/${organiser.ticketId}/transfer`) },
  { name: 'ticket-void', open: (page) => page.goto(`/orders/${organiser.orderId}/tickets/${organiser.ticketId}/void`) },
  { name: 'door', open: (page) => page.goto('/door') },
  { name: 'door-event', open: (page) => page.goto(`/door?event=${organiser.doorEventId}`) },
  {
    name: 'door-result',
    open: async (page) => {
      await page.goto(`/door?event=${organiser.doorEventId}`);
      await page.getByLabel('Ticket code').fill('NOT-A-CODE');
      await page.keyboard.press('Enter');
      await page.getByTestId('door-result').waitFor();
    },
  },
  { name: 'waiting-room', open: (page) => page.goto('/waiting-room') },
  { name: 'waiting-room-event', open: (page) => page.goto(`/waiting-room/${organiser.doorEventId}`) },
  {
    name: 'waiting-room-refused',
    open: async (page) => {
      await page.goto(`/waiting-room/${organiser.doorEventId}`);
      await page.getByLabel('Opens at').fill('2030-12-01T09:00');
      await page.getByLabel('Fixed', { exact: true }).check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('error').waitFor();
    },
  },
  { name: 'members', open: (page) => page.goto('/members') },
  { name: 'audit', open: (page) => page.goto('/audit') },
  { name: 'not-found', open: (page) => page.goto('/no-such-page') },
];

async function checkPage(page: Page, name: string, viewport: (typeof VIEWPORTS)[number], open: PageVisit['open']): Promise<void> {
  await open(page);
  await keepScreenshot(page, `${name}-${viewport.name}`);
  expect(await problemsOf(page)).toEqual({ violations: [], overflow: 0 });
}

describe.each(VIEWPORTS)('dashboard pages at $width×$height', (viewport) => {
  let signedInState: Awaited<ReturnType<Awaited<ReturnType<Browser['newContext']>>['storageState']>>;

  beforeAll(async () => {
    const context = await browser.newContext(dashboardVisitor(viewport));
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email', { exact: true }).fill(organiser.owner.email);
    await page.getByLabel('Password').fill(MEMBER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/keys');
    signedInState = await context.storageState();
    await context.close();
  }, 30_000);

  it.each(DASHBOARD_SIGNED_OUT)('$name (signed out) passes axe and fits the screen', async ({ name, open }) => {
    const context = await browser.newContext(dashboardVisitor(viewport));
    try {
      await checkPage(await context.newPage(), `dashboard-${name}`, viewport, open);
    } finally {
      await context.close();
    }
  }, 30_000);

  it.each(DASHBOARD_SIGNED_IN)('$name passes axe and fits the screen', async ({ name, open }) => {
    const context = await browser.newContext({ ...dashboardVisitor(viewport), storageState: signedInState });
    try {
      await checkPage(await context.newPage(), `dashboard-${name}`, viewport, open);
    } finally {
      await context.close();
    }
  }, 30_000);
});
