/**
 * Ticket emails in the organiser dashboard, in Chromium: an order's page
 * lists its email as sent; the owner resends it (the buyer gets a second
 * copy in MailDev, the page lists it, the audit log has it), and an email
 * that could not be delivered is listed with its reason on the orders page.
 */
import type { Browser, Page } from 'playwright-core';
import { createServiceClient, gen, localGrpcAddress } from '@partner-api/shared';
import { api } from './support/api';
import { launchBrowser } from './support/browser';
import { runClientAddress } from './support/client-address';
import { addMember, DASHBOARD_URL, MEMBER_PASSWORD } from './support/dashboard';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { uniqueAddress, waitForMail } from './support/mailbox';
import { inventoryClient, newOrganisation, operatorContext, publishedEvent } from './support/operator';

jest.setTimeout(120_000);

let browser: Browser;
let org: { id: number; key: string };
let owner: { email: string };

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read']);
  owner = await addMember(org.id, 'owner');
}, 60_000);
afterAll(async () => {
  await browser?.close();
}, 30_000);

async function signedIn(email: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: DASHBOARD_URL, extraHTTPHeaders: { 'x-forwarded-for': runClientAddress() } })).newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password').fill(MEMBER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/keys');
  return page;
}

it("shows an order's email, resends it with a button (audited), and lists undeliverable emails with the reason", async () => {
  const inventory = inventoryClient();
  const sale = await publishedEvent(inventory, org.id, { slugPrefix: 'dash-mail', title: 'Dashboard Mail', capacity: 10 });
  inventory.close();
  const buyer = uniqueAddress('dash-buyer');
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    key: org.key,
    body: { event_id: sale.slug, items: [{ ticket_type_id: Number(sale.typeId), quantity: 1 }] },
  });
  expect((await payCheckout(session.body.checkout_url, { email: buyer, first_name: 'Dash', last_name: 'Buyer', ...GOOD_CARD })).status).toBe(303);
  await waitForMail(buyer);
  const orderId = session.body.id;

  const page = await signedIn(owner.email);
  await page.goto(`/orders/${orderId}`);
  const emails = page.getByRole('table', { name: 'Emails' });
  await expect(emails.getByTestId('mail-state').allTextContents()).resolves.toEqual(['sent']);
  await page.getByRole('button', { name: `Email the tickets to ${buyer} again` }).click();
  await page.waitForURL(`**/orders/${orderId}?done=email_resent*`);
  await expect(page.locator('body').textContent()).resolves.toContain('emailed to the buyer again');
  await waitForMail(buyer, { count: 2 });
  await page.reload();
  await expect(page.getByRole('table', { name: 'Emails' }).locator('tbody tr').count()).resolves.toBe(2);
  await expect(page.getByRole('table', { name: 'Emails' }).textContent()).resolves.toContain(`by ${owner.email}`);
  await page.goto('/audit');
  await expect(page.locator('table').textContent()).resolves.toContain('order.email_resent');

  // A transfer to something that is not one address: the ticket moves, its email is given up, and the orders page says why.
  const tickets = createServiceClient(gen.tickets.TicketsService, process.env.TICKETS_GRPC_ADDR ?? localGrpcAddress('tickets'));
  const order = (await api<{ tickets: { id: number }[] }>(`/orders/${orderId}`, { key: org.key })).body;
  await tickets.transferTicket({ id: BigInt(order.tickets[0]!.id), attendee: { email: 'one,two@example.com' } }, operatorContext(org.id));
  tickets.close();
  const failure = page.getByRole('table', { name: 'Emails not delivered' }).getByTestId('mail-failure');
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 500))) {
    await page.goto('/orders');
    if ((await failure.count()) > 0) break;
  }
  await expect(failure.first().textContent()).resolves.toContain('not an email address');
  await page.context().close();
});
