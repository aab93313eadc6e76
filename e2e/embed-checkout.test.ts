/**
 * An embed order in Chromium: a partner's site (a small HTTP server on
 * another loopback port) frames the organisation's checkout; the operator
 * allowed that site with `partnerctl channel origin add`. The customer
 * picks tickets and pays inside the frame; the partner then sees the order
 * in GET /orders with `sales_channel` `embed` and `channel_origin` its site,
 * the attendee in the attendee list, and a signed order.completed at its
 * receiver. The checkout refuses a site that was not allowed (D240-D249).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { api, env } from './support/api';
import { launchBrowser } from './support/browser';
import { GOOD_CARD } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { deliveryOf, partnerAccepts } from './support/webhooks';
import { Receiver } from '../services/webhooks/test/support';

jest.setTimeout(90_000);

const CLI = path.join(__dirname, '..', 'services', 'cli', 'dist', 'main.js');
/** The orders service's public pages: the host of BASE_URL, on the hosted checkout's port. */
const checkoutBase = () => `http://${new URL(env('BASE_URL')).hostname}:4100`;

interface Order {
  id: string;
  sales_channel: string;
  channel_origin: string | null;
  checkout_session_id: string | null;
  total: string;
  tickets: Array<{ id: number }>;
}

/** A partner's web site: one page that frames the embed checkout at `embedPath`. */
class PartnerSite {
  private readonly server = http.createServer((req, res) => {
    if (req.url !== '/gigs') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Partner gigs</title></head><body>
<h1>Gigs this week</h1><iframe title="Tickets" src="${this.embedUrl}" width="640" height="900"></iframe></body></html>`);
  });

  url = '';

  constructor(private readonly embedUrl: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function partnerctl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args]);
  return stdout;
}

let browser: Browser;
let inventory: InventoryClient;
let org: { id: number; key: string };
let receiver: Receiver;
let secret: string;
let site: PartnerSite;
let slug: string;

beforeAll(async () => {
  browser = await launchBrowser();
  inventory = inventoryClient();
  org = await newOrganisation(['orders:read', 'events:read', 'attendees:read', 'webhooks:manage']);

  const ctx = operatorContext(org.id);
  slug = uniqueSlug('embed');
  await inventory.upsertEvent({ fields: { slug, title: 'Embed Night', startsAt: new Date(Date.now() + 10 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Hall', capacity: 100n } }, ctx);
  await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Standing', price: '42.00', bookingFee: '2.00', maxPerOrder: 8, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);

  site = await new PartnerSite(`${checkoutBase()}/embed/${org.id}/events/${slug}`).start();
  const added = JSON.parse(await partnerctl('channel', 'origin', 'add', String(org.id), site.url)) as { origin: string };
  expect(added.origin).toBe(site.url);

  receiver = await new Receiver().start();
  const endpoint = await api<{ secret: string }>('/webhook_endpoints', {
    method: 'POST',
    key: org.key,
    body: { url: `${receiver.url}/embed`, event_types: ['order.completed', 'ticket.issued'] },
  });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.secret;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  inventory?.close();
  await receiver?.stop();
  await site?.stop();
}, 30_000); // a browser closing on a busy machine can take seconds

it('an embed order in Chromium: bought in the frame on the partner site, listed with its channel and site, attendee listed, order.completed delivered', async () => {
  const page = await browser.newPage();
  await page.goto(`${site.url}/gigs`);
  const frame = page.frameLocator('iframe[title="Tickets"]');
  await expect(frame.getByRole('heading', { name: 'Embed Night' }).textContent()).resolves.toBe('Embed Night');

  // Nothing chosen: an alert in the frame, nothing held.
  await frame.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(frame.getByRole('alert').textContent()).resolves.toBe('Choose at least one ticket.');

  await frame.getByLabel('Standing').fill('2');
  await frame.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(frame.getByTestId('total').textContent()).resolves.toBe('$84.00');
  await frame.getByLabel('Email').fill('kim@example.com');
  await frame.getByLabel('First name').fill('Kim');
  await frame.getByLabel('Last name').fill('Ng');
  await frame.getByLabel('Name on card').fill(GOOD_CARD.card_name);
  await frame.getByLabel('Card number').fill(GOOD_CARD.card_number);
  await frame.getByLabel('Expiry (MM/YY)').fill(GOOD_CARD.card_expiry);
  await frame.getByLabel('Security code').fill(GOOD_CARD.card_cvc);
  await frame.getByRole('button', { name: 'Pay $84.00' }).click();
  await frame.getByTestId('confirmation').waitFor();
  const orderId = (await frame.getByTestId('order-id').textContent())!;
  // The partner's page stayed where it was: everything happened in the frame.
  expect(page.url()).toBe(`${site.url}/gigs`);
  await page.close();

  const listed = await api<{ data: Order[] }>(`/orders?limit=10`, { key: org.key });
  expect(listed.status).toBe(200);
  const order = listed.body.data.find((candidate) => candidate.id === orderId);
  expect(order).toMatchObject({ sales_channel: 'embed', channel_origin: site.url, checkout_session_id: null, total: '84.00' });
  expect(order!.tickets).toHaveLength(2);

  const attendees = await api<{ data: Array<{ order_id: string; attendee: Record<string, string | null> }> }>(`/events/${slug}/attendees`, { key: org.key });
  expect(attendees.status).toBe(200);
  expect(attendees.body.data.filter((ticket) => ticket.order_id === orderId).map((ticket) => ticket.attendee)).toEqual([
    { first_name: 'Kim', last_name: 'Ng', email: 'kim@example.com' },
    { first_name: 'Kim', last_name: 'Ng', email: 'kim@example.com' },
  ]);

  const delivered = await deliveryOf(receiver, '/embed', 'order.completed', 30_000);
  expect(partnerAccepts(String(delivered.headers['service-signature']), delivered.body, secret)).toBe(true);
  const body = JSON.parse(delivered.body) as { data: { object: Order } };
  expect(body.data.object).toMatchObject({ id: orderId, sales_channel: 'embed', channel_origin: site.url });
  expect(body.data.object).toEqual((await api<Order>(`/orders/${orderId}`, { key: org.key })).body);
  const issued = JSON.parse((await deliveryOf(receiver, '/embed', 'ticket.issued', 30_000)).body) as { data: { object: { id: number; order_id: string } } };
  expect(issued.data.object.order_id).toBe(orderId);
  expect(issued.data.object).toEqual((await api(`/tickets/${issued.data.object.id}`, { key: org.key })).body);
}, 60_000); // a whole purchase in a browser frame, with its webhook

it('refuses the checkout to a site that was not allowed, and frames it for nobody', async () => {
  const embed = `${checkoutBase()}/embed/${org.id}/events/${slug}`;
  for (const referer of ['https://not-allowed.example/gigs', 'http://127.0.0.1:1/gigs']) {
    const refused = await fetch(embed, { headers: { referer, 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'cross-site' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
    expect(await refused.text()).toContain('This site is not allowed to show this checkout.');
  }
  // The allowed site is believed from the Referer only, never from the address.
  const viaQuery = await fetch(`${embed}?origin=${encodeURIComponent(site.url)}`, { headers: { referer: 'https://not-allowed.example/' } });
  expect(viaQuery.status).toBe(403);

  // Removed by the operator: refused from then on.
  await partnerctl('channel', 'origin', 'remove', String(org.id), site.url);
  expect(JSON.parse(await partnerctl('channel', 'origin', 'list', String(org.id)))).toEqual([]);
  expect((await fetch(embed, { headers: { referer: `${site.url}/gigs` } })).status).toBe(403);
}, 30_000); // two partnerctl processes, each starting Node and connecting to the stack
