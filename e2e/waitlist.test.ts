/**
 * Waiting lists against the running stack: a partner's checkout holds every
 * ticket, a customer joins the event's waiting list on the public page
 * beside the hosted checkout, the held tickets come back (the session's
 * hold released, as the sweeper does at its expiry) and go to the list, not
 * back on sale; a signed `waitlist.released` reaches the partner's
 * receiver; the offer's link opens an ordinary checkout session that the
 * customer pays; `partnerctl waitlist list` shows each state
 * (decisions D250–D259).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { api } from './support/api';
import { runClientAddress } from './support/client-address';
import { GOOD_CARD, openCheckout, payCheckout } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { deliveryOf, partnerAccepts } from './support/webhooks';
import { Receiver } from '../services/webhooks/test/support';

interface Entry {
  id: string;
  email: string;
  quantity: number;
  state: string;
  offered: number | null;
  offer_id: string | null;
}

const CLI = path.join(__dirname, '..', 'services', 'cli', 'dist', 'main.js');
let organisation: { id: number; key: string };
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  organisation = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'webhooks:manage']);
  receiver = await new Receiver().start();
  const endpoint = await api<{ secret: string }>('/webhook_endpoints', {
    method: 'POST',
    key: organisation.key,
    body: { url: `${receiver.url}/waitlists`, event_types: ['waitlist.released'] },
  });
  expect(endpoint.status).toBe(201);
  secret = endpoint.body.secret;
}, 30_000);

afterAll(async () => {
  await receiver?.stop();
});

async function waitlist(slug: string): Promise<Entry[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'waitlist', 'list', slug, '--org', String(organisation.id), '--json']);
  return stdout.trim() ? stdout.trim().split('\n').map((line) => JSON.parse(line) as Entry) : [];
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('offers returned tickets to the list in order, announces them signed, and the offer is bought on the hosted checkout', async () => {
  const inventory = inventoryClient();
  const ctx = operatorContext(organisation.id);
  const slug = uniqueSlug('waitlist');
  let eventId: bigint;
  let poolId: bigint;
  try {
    eventId = (await inventory.upsertEvent({ fields: { slug, title: 'Waiting Night', startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx)).id;
    poolId = (await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: 2n } }, ctx)).id;
    await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '45.00', bookingFee: '0.00', maxPerOrder: 4, poolIds: [poolId] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  } finally {
    inventory.close();
  }
  const typeId = (await api<{ data: Array<{ id: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key })).body.data[0]!.id;

  // A partner's checkout holds both tickets: sold out.
  const held = await api<{ id: string; checkout_url: string }>('/checkout_sessions', { method: 'POST', key: organisation.key, body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 2 }] } });
  expect(held.status).toBe(201);
  const site = new URL(held.body.checkout_url).origin;

  // Two customers join on the public page; the first asks for both tickets.
  const joinPage = await openCheckout(`${site}/waitlist/${organisation.id}/${eventId}`);
  expect(joinPage.status).toBe(200);
  expect(joinPage.headers.get('cache-control')).toBe('no-store');
  expect(joinPage.html).toContain('<label>Email<input type="email" name="email"');
  const customerAddress = runClientAddress();
  const join = (email: string, quantity: number) =>
    fetch(`${site}/waitlist/${organisation.id}/${eventId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': customerAddress },
      body: new URLSearchParams({ ticket_type_id: String(typeId), quantity: String(quantity), email }).toString(),
    });
  expect((await join('first@example.com', 2)).status).toBe(200);
  expect((await join('second@example.com', 1)).status).toBe(200);
  expect((await join('not an email', 1)).status).toBe(400);
  expect((await waitlist(slug)).map((entry) => [entry.email, entry.state])).toEqual([
    ['first@example.com', 'waiting'],
    ['second@example.com', 'waiting'],
  ]);

  // The partner's hold ends (released now, as the sweeper releases it at its expiry): the list gets the tickets, not general sale.
  const release = inventoryClient();
  try {
    expect((await release.releaseHold({ holdId: held.body.id }, operatorContext(organisation.id))).released).toBe(true);
  } finally {
    release.close();
  }
  const offered = await until('the first entry offered', () => waitlist(slug), (entries) => entries[0]?.state === 'offered');
  expect(offered.map((entry) => [entry.state, entry.offered])).toEqual([
    ['offered', 2],
    ['waiting', null],
  ]);
  expect((await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key })).body.data[0]!.available).toBe(0);
  const late = await api('/checkout_sessions', { method: 'POST', key: organisation.key, body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 1 }] } });
  expect(late.status).toBe(422);

  // The partner hears of it, signed.
  const delivery = await deliveryOf(receiver, '/waitlists', 'waitlist.released');
  expect(partnerAccepts(String(delivery.headers['service-signature']), delivery.body, secret)).toBe(true);
  const body = JSON.parse(delivery.body) as { type: string; data: { object: Record<string, unknown> } };
  expect(body.type).toBe('waitlist.released');
  expect(body.data.object).toEqual({ object: 'waitlist_release', event_id: Number(eventId), pool_id: Number(poolId!), released_count: 2 });

  // The offer's link opens an ordinary checkout session on the offer's hold; the customer pays it.
  const offerId = offered[0]!.offer_id!;
  const link = await openCheckout(`${site}/waitlist/${organisation.id}/offers/${offerId}`);
  expect([link.status, link.location]).toEqual([303, `/checkout/${offerId}`]);
  const checkout = await openCheckout(`${site}/checkout/${offerId}`);
  expect(checkout.status).toBe(200);
  expect(checkout.html).toContain('value="first@example.com"');
  // The platform opened this session, not the partner: the API does not show it (D246, D259).
  expect((await api(`/checkout_sessions/${offerId}`, { key: organisation.key })).status).toBe(404);
  expect((await payCheckout(`${site}/checkout/${offerId}`, { email: 'first@example.com', first_name: 'Fay', last_name: 'Irst', ...GOOD_CARD })).status).toBe(303);
  const order = await api<{ status: string; total: string; sales_channel: string; channel_origin: string | null; tickets: unknown[] }>(`/orders/${offerId}`, { key: organisation.key });
  expect(order.body).toMatchObject({ status: 'completed', total: '90.00', sales_channel: 'web', channel_origin: null });
  expect(order.body.tickets).toHaveLength(2);

  const settled = await until('the offer marked purchased', () => waitlist(slug), (entries) => entries[0]?.state === 'purchased');
  expect(settled.map((entry) => entry.state)).toEqual(['purchased', 'waiting']);
  expect((await api<{ data: Array<{ available: number }> }>(`/events/${slug}/ticket_types`, { key: organisation.key })).body.data[0]!.available).toBe(0);
}, 90_000);
