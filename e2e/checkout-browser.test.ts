/**
 * The whole purchase in a real browser: a partner creates a checkout
 * session, the customer opens checkout_url in Chromium, a declined card
 * shows its error, a good card pays, and the partner then reads the order
 * and its tickets while the events arrive on Kafka. On a phone: the form
 * fits the screen, a mistyped expiry keeps what was typed and points at
 * its field, and a decline takes the focus.
 */
import type { Browser } from 'playwright-core';
import { api as callApi } from './support/api';
import { launchBrowser } from './support/browser';
import { EventCollector } from './support/events';
import { DECLINED_CARD, GOOD_CARD } from './support/hosted-checkout';
import { focusedAttribute, overflowOf } from './support/page-checks';
import { inventoryClient, newOrganisation, operatorContext, publishedEvent, uniqueSlug, type InventoryClient } from './support/operator';

let browser: Browser;
let inventory: InventoryClient;
let org: { id: number; key: string };
let events: EventCollector;

beforeAll(async () => {
  browser = await launchBrowser();
  inventory = inventoryClient();
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read']);
  events = new EventCollector(org.id);
  await events.start();
}, 60_000); // Chromium's launch and a Kafka consumer joining its group can each take seconds on a busy machine
afterAll(async () => {
  await browser?.close();
  inventory?.close();
  await events?.stop();
}, 30_000); // a Kafka consumer leaving its group can take seconds on a busy broker

it('creates a session, pays in Chromium after a decline, and the order, tickets and events follow', async () => {
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('browser');
  await inventory.upsertEvent({ fields: { slug, title: 'Browser Night', startsAt: new Date(Date.now() + 10 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Hall', capacity: 100n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Standing', price: '42.00', bookingFee: '2.00', maxPerOrder: 8, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);

  const created = await callApi<{ id: string; checkout_url: string }>('/checkout_sessions', {
    key: org.key,
    method: 'POST',
    body: { event_id: slug, items: [{ ticket_type_id: Number(type.id), quantity: 2 }], customer: { first_name: 'Robin' } },
  });
  expect(created.status).toBe(201);
  const session = created.body;

  const page = await browser.newPage();
  await page.goto(session.checkout_url);
  await expect(page.title()).resolves.toBe('Checkout · Browser Night');
  await expect(page.getByTestId('total').textContent()).resolves.toBe('$84.00');
  // The start on the venue's clock, named by its zone (Sydney's, not UTC).
  await expect(page.locator('.when time').textContent()).resolves.toMatch(/ at \d{1,2}:\d{2} [ap]m AE[DS]T$/);
  await expect(page.getByLabel('First name').inputValue()).resolves.toBe('Robin');

  const fillCard = async (card: typeof GOOD_CARD) => {
    await page.getByLabel('Name on card').fill(card.card_name);
    await page.getByLabel('Card number').fill(card.card_number);
    await page.getByLabel('Expiry (MM/YY)').fill(card.card_expiry);
    await page.getByLabel('Security code').fill(card.card_cvc);
  };
  await page.getByLabel('Email').fill('robin@example.com');
  await page.getByLabel('Last name').fill('Hood');
  await fillCard(DECLINED_CARD);
  await page.getByRole('button', { name: 'Pay $84.00' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toBe('Your card was declined. Try another card: your tickets are still held.');
  expect((await callApi(`/orders/${session.id}`, { key: org.key })).status).toBe(404);
  expect((await callApi<{ status: string }>(`/checkout_sessions/${session.id}`, { key: org.key })).body.status).toBe('open');

  await fillCard(GOOD_CARD);
  await page.getByRole('button', { name: 'Pay $84.00' }).click();
  await page.getByTestId('confirmation').waitFor();
  await expect(page.getByTestId('order-id').textContent()).resolves.toBe(session.id);
  expect(new URL(page.url()).pathname).toBe(`/checkout/${session.id}`);

  const order = await callApi<{ status: string; customer: Record<string, string | null>; tickets: Array<{ id: number; attendee: Record<string, string | null> }> }>(
    `/orders/${session.id}`,
    { key: org.key },
  );
  expect(order.status).toBe(200);
  expect(order.body.status).toBe('completed');
  expect(order.body.customer).toMatchObject({ email: 'robin@example.com', first_name: 'Robin', last_name: 'Hood' });
  expect(order.body.tickets).toHaveLength(2);
  expect(order.body.tickets[0]!.attendee).toEqual({ first_name: 'Robin', last_name: 'Hood', email: 'robin@example.com' });

  const seen = await events.waitFor(
    (all) => all.some((e) => e.type === 'order.completed' && e.data.object.id === session.id) && all.filter((e) => e.type === 'ticket.issued' && e.data.object.order_id === session.id).length === 2,
    'order.completed and two ticket.issued',
  );
  expect(seen.filter((e) => e.type === 'order.completed' && e.data.object.id === session.id)).toHaveLength(1);
  await page.close();
}, 60_000); // a whole purchase in a browser, with the events that follow it

it('on a phone: the form fits, the hold is on the venue clock, a mistyped expiry keeps the card and names its field, a decline takes the focus', async () => {
  const { slug, typeId } = await publishedEvent(inventory, org.id, { slugPrefix: 'phone', title: 'Phone Night', capacity: 10 });
  const created = await callApi<{ id: string; checkout_url: string }>('/checkout_sessions', {
    key: org.key,
    method: 'POST',
    body: { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 1 }] },
  });
  expect(created.status).toBe(201);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(created.body.checkout_url);
  expect(await overflowOf(page)).toBe(0);
  // The hold as the event's time above it: the venue's clock (Sydney's), named, and the minutes left.
  await expect(page.getByTestId('hold').textContent()).resolves.toMatch(/^Your tickets are held for 1[45] more minutes, until \d{1,2}:\d{2} [ap]m AE[DS]T\.$/);

  await page.getByLabel('Email').fill('pat@example.com');
  await page.getByLabel('Name on card').fill(GOOD_CARD.card_name);
  await page.getByLabel('Card number').fill(GOOD_CARD.card_number);
  await page.getByLabel('Expiry (MM/YY)').fill('1330');
  await page.getByLabel('Security code').fill(GOOD_CARD.card_cvc);
  await page.getByRole('button', { name: 'Pay $40.00' }).click();
  await page.getByTestId('error').waitFor();
  expect(await overflowOf(page)).toBe(0);
  // Nothing typed is lost but the security code; the expiry is marked, described by the message, and focused.
  await expect(page.getByLabel('Name on card').inputValue()).resolves.toBe(GOOD_CARD.card_name);
  await expect(page.getByLabel('Card number').inputValue()).resolves.toBe(GOOD_CARD.card_number);
  await expect(page.getByLabel('Email').inputValue()).resolves.toBe('pat@example.com');
  const expiry = page.getByLabel('Expiry (MM/YY)');
  await expect(expiry.inputValue()).resolves.toBe('1330');
  await expect(expiry.getAttribute('aria-invalid')).resolves.toBe('true');
  await expect(page.locator(`#${await expiry.getAttribute('aria-describedby')}`).textContent()).resolves.toBe('Enter the card expiry as MM/YY, for example 08/29.');
  await expect(focusedAttribute(page, 'name')).resolves.toBe('card_expiry');

  // MMYY is an expiry; the declined card's message takes the focus and suggests another card.
  await page.getByLabel('Card number').fill(DECLINED_CARD.card_number);
  await expiry.fill('1234');
  await page.getByLabel('Security code').fill(GOOD_CARD.card_cvc);
  await page.getByRole('button', { name: 'Pay $40.00' }).click();
  await page.getByTestId('error').waitFor();
  await expect(focusedAttribute(page, 'data-testid')).resolves.toBe('error');
  await expect(page.getByRole('alert').textContent()).resolves.toBe('Your card was declined. Try another card: your tickets are still held.');
  await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('');

  await page.getByLabel('Card number').fill(GOOD_CARD.card_number);
  await expiry.fill('1234');
  await page.getByLabel('Security code').fill(GOOD_CARD.card_cvc);
  await page.getByRole('button', { name: 'Pay $40.00' }).click();
  await page.getByTestId('confirmation').waitFor();
  // A card through the processor is a Stripe payment (the spec's payment_method), not "other".
  const order = await callApi<{ payment_method: string }>(`/orders/${created.body.id}`, { key: org.key });
  expect(order.body.payment_method).toBe('stripe');
  await context.close();
}, 60_000); // a purchase in a browser with three submissions

it('a sold-out web page offers no payment and leads to its waiting list', async () => {
  const { slug, typeId } = await publishedEvent(inventory, org.id, { slugPrefix: 'sold', title: 'Sold Night', capacity: 1 });
  // A partner's checkout holds the only ticket: sold out.
  const held = await callApi<{ checkout_url: string }>('/checkout_sessions', { key: org.key, method: 'POST', body: { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 1 }] } });
  expect(held.status).toBe(201);
  const page = await browser.newPage();
  await page.goto(`${new URL(held.body.checkout_url).origin}/web/${org.id}/events/${slug}`);
  await expect(page.getByRole('status').textContent()).resolves.toBe('Sold out.');
  await expect(page.getByRole('button', { name: 'Continue to payment' }).count()).resolves.toBe(0);
  await page.getByRole('link', { name: 'Join the waiting list' }).click();
  await expect(page.title()).resolves.toBe('Waiting list · Sold Night');
  await expect(page.getByLabel('Ticket type').textContent()).resolves.toContain('sold out');
  await page.close();
}, 30_000);
