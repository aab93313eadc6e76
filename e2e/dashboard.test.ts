/**
 * The organiser dashboard in Chromium against the running stack: an owner
 * signs in, creates and rolls keys (the old key works through the API for
 * its grace, and a roll with "now" revokes it at once), and an endpoint
 * failing 50 times in a row is disabled, its organisation's owners and
 * admins are emailed (a loopback SMTP server of this test), and the owner
 * re-enables it, resends one delivery and recovers everything missed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, type ErrorBody } from './support/api';
import { launchBrowser } from './support/browser';
import { runClientAddress } from './support/client-address';
import { addMember, CapturingSmtp, DASHBOARD_URL, MEMBER_PASSWORD, restartDashboard } from './support/dashboard';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, issueKey, keyAdmin, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { Receiver, type ReceivedRequest, waitFor } from '../services/webhooks/test/support';

const SCREENSHOTS = path.join(__dirname, '..', '.data', 'screenshots');

let browser: Browser;
let smtp: CapturingSmtp;
let org: { id: number; key: string };
let owner: { id: number; email: string };

beforeAll(async () => {
  smtp = await new CapturingSmtp().start();
  restartDashboard({ DASHBOARD_MAILER: 'smtp', SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, NOTICE_INTERVAL_MS: '500' });
  browser = await launchBrowser();
  org = await newOrganisation(['events:read', 'orders:read', 'orders:write', 'webhooks:manage']);
  owner = await addMember(org.id, 'owner');
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await smtp?.stop();
  restartDashboard();
}, 60_000);

/** The browser of this run: its sign-ins count against an address of its own. */
const visitor = { baseURL: DASHBOARD_URL, extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } };

async function signedIn(email: string): Promise<Page> {
  const page = await (await browser.newContext(visitor)).newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/keys');
  return page;
}

const status = async (key: string) => {
  const response = await api('/events', { key });
  return { status: response.status, code: (response.body as unknown as ErrorBody).error?.code };
};

test('an owner signs in, creates a key, rolls it with a grace period and again with "now"', async () => {
  const page = await signedIn(owner.email);
  await expectHeading(page, 'API keys');
  await page.getByLabel('Name').fill('Box office');
  await page.getByRole('button', { name: 'Create live key' }).click();
  const first = (await page.getByTestId('secret').textContent())!.trim();
  expect(first).toMatch(/^svc_live_/);
  expect(await status(first)).toEqual({ status: 200, code: undefined });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'keys.png'), fullPage: true });

  await page.getByRole('link', { name: 'Manage Box office' }).click();
  await page.getByLabel('Old key keeps working for').selectOption({ label: '24 hours' });
  await page.getByLabel('I have somewhere to put the new secret').check();
  await page.getByRole('button', { name: 'Roll key' }).click();
  const second = (await page.getByTestId('secret').textContent())!.trim();
  expect(second).not.toBe(first);
  // On the organisation's clock (UTC while it has no events), named: not a raw ISO time.
  await expect(page.getByTestId('grace').textContent()).resolves.toMatch(/^The old key keeps working until \d{1,2} \w{3} \d{4}, \d{1,2}:\d{2} [ap]m UTC\.$/);
  // During the grace both work.
  expect(await status(first)).toEqual({ status: 200, code: undefined });
  expect(await status(second)).toEqual({ status: 200, code: undefined });

  // The rolled key is the one still "active": roll it with "now".
  await page.locator('tr', { has: page.getByText('active') }).getByRole('link', { name: 'Manage Box office' }).click();
  await page.getByLabel('Old key keeps working for').selectOption({ label: 'Revoke now' });
  await page.getByLabel('I have somewhere to put the new secret').check();
  await page.getByRole('button', { name: 'Roll key' }).click();
  const third = (await page.getByTestId('secret').textContent())!.trim();
  await expect(page.getByTestId('grace').textContent()).resolves.toContain('revoked at once');
  expect(await status(second)).toEqual({ status: 401, code: 'api_key_revoked' });
  expect(await status(third)).toEqual({ status: 200, code: undefined });
  expect(await status(first)).toEqual({ status: 200, code: undefined }); // still in its own grace
  await page.context().close();
}, 60_000);

test('a failing endpoint is disabled and its owners and admins are emailed; the owner re-enables it, resends a delivery and recovers what was missed', async () => {
  const admin = await addMember(org.id, 'admin');
  const developer = await addMember(org.id, 'developer');
  const receiver = await new Receiver().start();
  receiver.answer = () => 500;
  const startedAt = new Date(Date.now() - 60_000);
  try {
    const endpoint = await api<{ id: number }>('/webhook_endpoints', { method: 'POST', key: org.key, body: { url: `${receiver.url}/hooks`, event_types: ['ticket.issued'] } });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.id;

    // 50 comps: 50 ticket.issued, 50 failed deliveries in a row.
    const { slug, typeId } = await publishedEvent('Dashboard Night');
    const comp = (n: number, prefix: string) =>
      api<{ tickets: Array<{ id: number }> }>('/comp_tickets', {
        method: 'POST',
        key: org.key,
        body: { event_id: slug, ticket_type_id: typeId, attendees: Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.com`, name: `Guest ${i}` })) },
      });
    const failedBatch = await comp(50, 'failing');
    expect(failedBatch.status).toBe(201);

    await waitFor(async () => (await api<{ status: string }>(`/webhook_endpoints/${endpointId}`, { key: org.key })).body.status === 'disabled', 60_000, 'the endpoint to be disabled');
    const disabled = await api<{ disabled_reason: string }>(`/webhook_endpoints/${endpointId}`, { key: org.key });
    expect(disabled.body.disabled_reason).toBe('consecutive_failures');

    // Owners and admins get the email; developers do not.
    await waitFor(() => smtp.mail.some((mail) => mail.to.includes(owner.email)) && smtp.mail.some((mail) => mail.to.includes(admin.email)), 20_000, 'the disable emails');
    const email = smtp.mail.find((mail) => mail.to.includes(owner.email))!;
    expect(email.text).toContain(`Subject: Webhook endpoint disabled: ${receiver.url}/hooks`);
    expect(email.text).toContain('its last 50 deliveries in a row failed');
    expect(email.text).toContain(`${DASHBOARD_URL}/webhooks/${endpointId}`);
    expect(email.text).toContain('Re-enable the endpoint');
    expect(smtp.mail.some((mail) => mail.to.includes(developer.email))).toBe(false);

    // Events while disabled are missed: nothing is sent.
    const missedBatch = await comp(3, 'missed');
    expect(missedBatch.status).toBe(201);
    const sentBefore = receiver.requests.length;

    const page = await signedIn(owner.email);
    await page.goto('/webhooks');
    await page.getByRole('link', { name: `${receiver.url}/hooks` }).click();
    await expect(page.getByTestId('status').textContent()).resolves.toBe('disabled');
    await expect(page.getByTestId('failures').textContent()).resolves.toContain('50 / 50');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webhook-disabled.png') });
    expect(receiver.requests.length).toBe(sentBefore);

    receiver.answer = () => 200;
    // Only what arrives from here on is answered 200: the earlier requests are the failures.
    const fixedFrom = receiver.requests.length;
    await page.getByLabel('The receiver is fixed').check();
    await page.getByRole('button', { name: 'Re-enable endpoint' }).click();
    await expect(page.getByTestId('status').textContent()).resolves.not.toBe('disabled');

    // Resend one failed delivery: it arrives as a later attempt.
    const failedRow = page.locator('tr[data-delivery-id]', { has: page.locator('.badge.failed') }).first();
    const failedEvent = (await failedRow.locator('code').first().textContent())!.trim();
    await failedRow.getByRole('button', { name: /Resend delivery/ }).click();
    await expect(page.getByTestId('flash').textContent()).resolves.toContain(failedEvent);
    // The answer was a redirect to the page (303), so reloading it shows the page again and sends nothing.
    expect(new URL(page.url()).searchParams.get('done')).toBe('delivery_resent');
    await waitFor(() => receiver.forEvent(failedEvent).some((request) => Number(request.headers['service-delivery-attempt']) > 1), 20_000, 'the resent delivery');

    // Recover everything failed or missed since before the comps.
    await page.getByLabel(/Every event since/).fill(startedAt.toISOString().slice(0, 16));
    await page.getByLabel('Send them again').check();
    await page.getByRole('button', { name: 'Recover' }).click();
    await expect(page.getByTestId('flash').textContent()).resolves.toMatch(/^\d+ failed or missed deliveries/);
    expect(new URL(page.url()).searchParams.get('done')).toBe('endpoint_recovered');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'webhook-recovered.png') });

    const ticketIds = [...failedBatch.body.tickets, ...missedBatch.body.tickets].map((ticket) => ticket.id).sort((a, b) => a - b);
    const ticketIdOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { data: { object: { id: number } } }).data.object.id;
    const delivered = () => new Set(receiver.requests.slice(fixedFrom).filter((request) => request.path === '/hooks').map(ticketIdOf));
    await waitFor(() => ticketIds.every((id) => delivered().has(id)), 60_000, 'every failed and missed event to be delivered');
    const attemptsOf = (ticketId: number) =>
      receiver.requests.filter((request) => ticketIdOf(request) === ticketId).map((request) => Number(request.headers['service-delivery-attempt']));
    // A missed event's first attempt is the recovery's; a failed one's recovery continues its count.
    expect(Math.min(...attemptsOf(missedBatch.body.tickets[0]!.id))).toBe(1);
    expect(Math.max(...attemptsOf(failedBatch.body.tickets[10]!.id))).toBeGreaterThan(1);

    const healthy = await api<{ status: string; consecutive_failures: number }>(`/webhook_endpoints/${endpointId}`, { key: org.key });
    expect(healthy.body).toMatchObject({ status: 'enabled', consecutive_failures: 0 });

    // Another organisation's owner finds no such endpoint, nor its deliveries.
    const stranger = await addMember((await newOrganisation()).id, 'owner');
    const strangerPage = await signedIn(stranger.email);
    expect((await strangerPage.goto(`/webhooks/${endpointId}`))!.status()).toBe(404);
    await expect(strangerPage.locator('body').textContent()).resolves.not.toContain(receiver.url);
    await strangerPage.context().close();
    await page.context().close();
  } finally {
    await receiver.stop();
  }
}, 180_000);

test('an order paid at the hosted checkout is found under Orders, and door staff check its ticket in once', async () => {
  const { slug, typeId } = await publishedEvent('Door Night');
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', { method: 'POST', key: org.key, body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 2 }] } });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', ...GOOD_CARD })).status).toBe(303);
  const completed = await api<{ order_id: string }>(`/checkout_sessions/${session.body.id}`, { key: org.key });
  const order = (await api<{ id: string; tickets: Array<{ barcode: string }> }>(`/orders/${completed.body.order_id}`, { key: org.key })).body;
  expect(order.tickets).toHaveLength(2);

  const page = await signedIn(owner.email);
  await page.goto('/orders');
  await page.getByRole('link', { name: /order of Ann Lee/ }).click();
  await expectHeading(page, order.id);
  await expect(page.locator('body').textContent()).resolves.toContain('Ann Lee');
  // A card paid through the processor is the spec's `stripe`, not "other".
  await expect(page.getByTestId('payment-method').textContent()).resolves.toBe('Card (Stripe)');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'order.png') });
  await page.goto('/members');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'members.png') });
  await page.goto('/audit');
  await expect(page.locator('table').textContent()).resolves.toContain('sign_in');
  await page.screenshot({ path: path.join(SCREENSHOTS, 'audit.png') });
  await page.context().close();

  const door = await addMember(org.id, 'door_staff');
  const staff = await (await browser.newContext(visitor)).newPage();
  await staff.goto('/sign-in');
  await staff.getByLabel('Email', { exact: true }).fill(door.email);
  await staff.getByLabel('Password').fill(MEMBER_PASSWORD);
  await staff.getByRole('button', { name: 'Sign in' }).click();
  await staff.waitForURL('**/door');
  const doorEvent = await staff.locator('#event option', { hasText: 'Door Night' }).getAttribute('value');
  await staff.getByLabel('Event at this door').selectOption(doorEvent!);
  await staff.getByRole('button', { name: 'Open the door for this event' }).click();
  await staff.getByLabel('Ticket code').fill(order.tickets[0]!.barcode);
  await staff.keyboard.press('Enter');
  // Each scan loads the page anew: wait for this scan's result, not the last one's.
  await staff.waitForSelector('[data-testid="door-result"][data-outcome="checked_in"]');
  // The field is empty and focused for the next scan.
  await expect(staff.getByLabel('Ticket code').inputValue()).resolves.toBe('');
  await expect(staff.locator('#code:focus').count()).resolves.toBe(1);
  await staff.screenshot({ path: path.join(SCREENSHOTS, 'door.png') });
  await staff.getByLabel('Ticket code').fill(order.tickets[0]!.barcode);
  await staff.keyboard.press('Enter');
  await staff.waitForSelector('[data-testid="door-result"][data-outcome="already_checked_in"]');
  await expect(staff.getByTestId('door-result').textContent()).resolves.toContain('Ann Lee');
  // Door staff see nothing else.
  expect((await staff.goto('/orders'))!.status()).toBe(403);
  await staff.context().close();
}, 60_000);

test('an owner adds a webhook endpoint in the dashboard and sees its secret once; a test send offers no Resend', async () => {
  const receiver = await new Receiver().start();
  try {
    const page = await signedIn(owner.email);
    // Test mode, where this organisation has no endpoint yet: the empty state names the API's real path.
    await page.getByRole('button', { name: 'View test data' }).click();
    await page.goto('/webhooks');
    const empty = (await page.getByTestId('empty').textContent())!;
    expect(empty).toContain('POST /webhook_endpoints');
    expect(empty).not.toContain('/v1/');

    await page.getByLabel('URL').fill('http://example.com/hooks');
    await page.getByRole('button', { name: 'Add test endpoint' }).click();
    // The service's refusal, tied to the field, with what was typed kept.
    await expect(page.getByTestId('error').textContent()).resolves.toMatch(/https/i);
    await expect(page.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('URL').inputValue()).resolves.toBe('http://example.com/hooks');

    await page.getByLabel('URL').fill(`${receiver.url}/hooks`);
    await page.getByLabel('Description').fill('Box office listener');
    await page.getByLabel('order.completed').check();
    await page.getByRole('button', { name: 'Add test endpoint' }).click();
    await expect(page.getByTestId('secret').textContent()).resolves.toMatch(/^whsec_/);
    const row = page.locator('tr', { hasText: `${receiver.url}/hooks` });
    await expect(row.textContent()).resolves.toContain('Box office listener');
    const endpointId = Number(await row.getAttribute('data-endpoint-id'));
    const created = await api<{ mode: string; event_types: string[] }>(`/webhook_endpoints/${endpointId}`, { key: org.key });
    expect(created.body).toMatchObject({ mode: 'test', event_types: ['order.completed'] });

    // A test send is delivered once and cannot be resent: its row has no Resend.
    expect((await api(`/webhook_endpoints/${endpointId}/test`, { method: 'POST', key: org.key, body: {} })).status).toBe(200);
    await page.goto(`/webhooks/${endpointId}`);
    await expect(page.locator('tr[data-delivery-id]').count()).resolves.toBe(1);
    await expect(page.locator('tr[data-delivery-id]').textContent()).resolves.toContain('test');
    await expect(page.getByRole('button', { name: /^Resend delivery/ }).count()).resolves.toBe(0);
    await page.context().close();
  } finally {
    await receiver.stop();
  }
}, 60_000);

test("the Keys page hides revoked keys unless asked and pages the rest; times are on the organiser's venue clock, named", async () => {
  const venueOrg = await newOrganisation(['events:read']);
  const venueOwner = await addMember(venueOrg.id, 'owner');
  // Its events are in Brisbane (no daylight saving: AEST all year).
  const inventory = inventoryClient();
  try {
    const ctx = operatorContext(venueOrg.id);
    const slug = uniqueSlug('zone');
    await inventory.upsertEvent({ fields: { slug, title: 'Brisbane Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Brisbane' } }, ctx);
    const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 10n } }, ctx);
    await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '10.00', bookingFee: '0.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  } finally {
    inventory.close();
  }
  // 30 more keys, 3 of them revoked: 28 that work, with the organisation's own.
  for (let i = 0; i < 30; i += 1) await issueKey(venueOrg.id, ['events:read']);
  await keyAdmin(async (admin) => {
    const keys = await admin.listKeys(venueOrg.id);
    for (const key of keys.slice(-3)) await admin.revokeKey(venueOrg.id, key.id);
  });

  const page = await signedIn(venueOwner.email);
  const rows = page.locator('tr[data-key-id]');
  await expect(rows.count()).resolves.toBe(25);
  await expect(page.locator('tr[data-key-id] .badge.revoked').count()).resolves.toBe(0);
  await expect(page.getByTestId('key-page').textContent()).resolves.toBe('Page 1 of 2');
  await page.getByRole('link', { name: 'Older keys' }).click();
  await expect(rows.count()).resolves.toBe(3);
  await page.getByRole('link', { name: 'Show 3 revoked and expired keys' }).click();
  await expect(page.locator('tr[data-key-id] .badge.revoked').count()).resolves.toBe(3);
  await expect(page.getByTestId('key-page').textContent()).resolves.toBe('Page 1 of 2');
  await page.getByRole('link', { name: 'Hide revoked and expired keys' }).click();
  await expect(page.locator('tr[data-key-id] .badge.revoked').count()).resolves.toBe(0);

  // A roll's grace ends on the organisation's clock: its venues' zone, named.
  await page.locator('tr[data-key-id]').first().getByRole('link', { name: /^Manage/ }).click();
  await page.getByLabel('Old key keeps working for').selectOption({ label: '24 hours' });
  await page.getByLabel('I have somewhere to put the new secret').check();
  await page.getByRole('button', { name: 'Roll key' }).click();
  await expect(page.getByTestId('grace').textContent()).resolves.toMatch(/^The old key keeps working until \d{1,2} \w{3} \d{4}, \d{1,2}:\d{2} [ap]m AEST\.$/);

  // The door's events on their venue's clock, named.
  await page.goto('/door');
  await expect(page.locator('#event option', { hasText: 'Brisbane Night' }).textContent()).resolves.toMatch(/^Brisbane Night · \d{1,2} \w{3} \d{4}, \d{1,2}:\d{2} [ap]m AEST$/);
  await page.context().close();
}, 90_000);

/** A published event of the suite's organisation with one GA type on a pool of 100. */
async function publishedEvent(title: string): Promise<{ slug: string; typeId: number }> {
  const inventory = inventoryClient();
  try {
    const ctx = operatorContext(org.id);
    const slug = uniqueSlug('dash');
    await inventory.upsertEvent({ fields: { slug, title, startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
    const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 100n } }, ctx);
    const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '0.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    return { slug, typeId: Number(type.id) };
  } finally {
    inventory.close();
  }
}

async function expectHeading(page: Page, name: string): Promise<void> {
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(name);
}
