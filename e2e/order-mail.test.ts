/**
 * The emails that put tickets in their holders' hands, read from the local
 * mail server (MailDev) as a developer would see them: a checkout session
 * paid on the hosted checkout mails its buyer once, with every ticket's QR
 * code (an inline image that decodes to the ticket's barcode), the event,
 * venue and times in the venue's zone, an .ics file and the ticket page's
 * link; a transfer mails the new attendee the new code (and the old code no
 * longer checks in) and tells the previous attendee; partnerctl resends,
 * rate-limited and audited; an address that cannot be mailed is recorded
 * as failed without touching the ticket; a test key's dry run mails nobody.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool, createServiceClient, gen, localGrpcAddress, type ServiceClient } from '@partner-api/shared';
import { api as callApi, env } from './support/api';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { attachment, inlineQrCodes, mailTo, uniqueAddress, waitForMail, type Mail } from './support/mailbox';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';

jest.setTimeout(150_000); // partnerctl starts a Node process per call: 10-20 s each on a loaded 2-core machine

type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;
interface Ticket {
  id: number;
  barcode: string;
  status: string;
  seat_label: string | null;
  attendee: { email: string | null };
}

let inventory: InventoryClient;
let tickets: TicketsClient;
let org: { id: number; key: string };
let sale: { slug: string; eventId: number; typeId: number };
const dashboardDb = createPool({ url: env('DATABASE_URL'), schema: 'dashboard', max: 1 });
const api: typeof callApi = (p, options = {}) => callApi(p, { ...options, key: options.key ?? org.key });

beforeAll(async () => {
  inventory = inventoryClient();
  tickets = createServiceClient(gen.tickets.TicketsService, process.env.TICKETS_GRPC_ADDR ?? localGrpcAddress('tickets'));
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'check_in:write', 'attendees:read']);
  const ctx = operatorContext(org.id);
  const venue = await inventory.upsertVenue(
    { fields: { name: 'Hamer Hall', slug: uniqueSlug('hamer'), line1: '100 St Kilda Rd', locality: 'Southbank', state: 'VIC', postalCode: '3006', country: 'AU' } },
    ctx,
  );
  const slug = uniqueSlug('mail');
  // 20:00 in Melbourne, whatever the season: the email must say so, not 09:00 or 10:00 UTC.
  const event = await inventory.upsertEvent(
    { fields: { slug, title: 'Mail Night', startsAt: '2031-03-14T09:00:00Z', timezone: 'Australia/Melbourne', doors: '7:00pm', venueId: venue.id } },
    ctx,
  );
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Stalls', capacity: 100n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Stalls', price: '55.00', bookingFee: '3.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  sale = { slug, eventId: Number(event.id), typeId: Number(type.id) };
}, 30_000);

afterAll(async () => {
  inventory?.close();
  tickets?.close();
  await dashboardDb.end();
});

/** A checkout session paid on the hosted checkout by `email`; the order's id. */
async function buy(email: string, quantity: number): Promise<string> {
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    body: { event_id: sale.slug, items: [{ ticket_type_id: sale.typeId, quantity }] },
  });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email, first_name: 'Robin', last_name: 'Mailer', ...GOOD_CARD })).status).toBe(303);
  return session.body.id;
}

const orderTickets = async (orderId: string) => (await api<{ tickets: Ticket[] }>(`/orders/${orderId}`)).body.tickets;
const ticket = async (id: number) => (await api<Ticket>(`/tickets/${id}`)).body;
const partnerctl = (...args: string[]) =>
  promisify(execFile)(process.execPath, [path.join(__dirname, '..', 'services', 'cli', 'dist', 'main.js'), ...args], { env: process.env });

/** The codes the mail's inline QR images decode to, sorted. */
async function mailedCodes(mail: Mail): Promise<string[]> {
  const codes = [...(await inlineQrCodes(mail)).values()];
  expect(codes.every((code) => typeof code === 'string')).toBe(true);
  return (codes as string[]).sort();
}

describe('the order email', () => {
  let email: string;
  let orderId: string;
  let mail: Mail;

  beforeAll(async () => {
    email = uniqueAddress('buyer');
    orderId = await buy(email, 2);
    mail = (await waitForMail(email, { subject: /Your tickets/ }))[0]!;
  });

  it("carries every ticket's QR code, decoding to the barcode GET /tickets/{id} gives", async () => {
    const issued = await orderTickets(orderId);
    expect(issued).toHaveLength(2);
    const barcodes = (await Promise.all(issued.map((t) => ticket(t.id)))).map((t) => t.barcode).sort();
    expect(await mailedCodes(mail)).toEqual(barcodes);
    // Each image is shown inline by its content id, never fetched from anywhere.
    for (const t of issued) expect(mail.html).toContain(`Ticket ${t.id}`);
    expect(mail.html).not.toMatch(/<img[^>]+src="https?:/);
  });

  it("says the event, the venue and its address, and doors and start in the venue's zone, named; text and HTML alike", () => {
    expect(mail.subject).toBe('Your tickets to Mail Night');
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('Hamer Hall, 100 St Kilda Rd');
      expect(part).toContain('Doors open 7:00pm (Australia/Melbourne)');
      expect(part).toMatch(/Friday 14 March 2031(,| at) 8:00\s?pm AEDT \(Australia\/Melbourne\)/);
    }
    expect(mail.text).toContain('Stalls');
    expect(mail.text).toContain('Attendee: Robin Mailer');
  });

  it('links to the signed ticket page and attaches the event as .ics', async () => {
    const link = new RegExp(`/my-tickets/order/${orderId}/[A-Za-z0-9_-]{22}`);
    expect(mail.text).toMatch(link);
    expect(mail.html).toMatch(link);
    const ics = mail.attachments!.find((file) => file.filename === 'event.ics')!;
    expect(ics.contentType).toMatch(/^text\/calendar/);
    const calendar = (await attachment(mail, ics)).toString('utf8');
    expect(calendar).toContain('SUMMARY:Mail Night');
    expect(calendar).toContain('DTSTART:20310314T090000Z');
    expect(calendar).toContain('LOCATION:Hamer Hall');
  });

  it('is sent once, and recorded as sent', async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await mailTo(email)).toHaveLength(1);
    const { data } = await tickets.listOrderMails({ orderId }, operatorContext(org.id));
    expect(data.map((m) => [m.kind, m.state, m.recipient])).toEqual([['order', 'sent', email]]);
  });

  it('partnerctl resends it to the buyer, in the audit log; at most 3 resends an hour', async () => {
    await partnerctl('order', 'resend-email', orderId, '--org', String(org.id));
    // Two more as the dashboard asks (its own test clicks the button): the limit counts every resend of the order.
    for (let n = 2; n <= 3; n += 1) await tickets.resendOrderMail({ orderId, requestedBy: 'e2e' }, operatorContext(org.id));
    const mails = await waitForMail(email, { count: 4 });
    expect(new Set((await Promise.all(mails.map(mailedCodes))).map((codes) => codes.join())).size).toBe(1);
    await expect(partnerctl('order', 'resend-email', orderId, '--org', String(org.id))).rejects.toMatchObject({ stderr: expect.stringMatching(/rate_limited|resent 3 times/) });
    const { rows } = await dashboardDb.query<{ actor: string; target: string }>(
      "SELECT actor, target FROM audit_events WHERE organisation_id = $1 AND action = 'order.email_resent'",
      [org.id],
    );
    expect(rows).toEqual([{ actor: 'partnerctl', target: `order ${orderId}` }]);
    const { data } = await tickets.listOrderMails({ orderId }, operatorContext(org.id));
    expect(data.map((m) => [m.kind, m.requestedBy ?? null])).toEqual([['order', null], ['order_resend', 'partnerctl'], ['order_resend', 'e2e'], ['order_resend', 'e2e']]);
  });
});

it("an order from the web channel (the platform's own event page) is mailed the same way", async () => {
  const email = uniqueAddress('web-buyer');
  const pagesOrigin = new URL(process.env.CHECKOUT_BASE_URL ?? 'http://127.0.0.1:4100').origin;
  const eventPage = `${pagesOrigin}/web/${org.id}/events/${sale.slug}`;
  const html = await (await fetch(eventPage)).text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  expect(token).toBeDefined();
  const chosen = await fetch(eventPage, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: token!.replace(/&amp;/g, '&'), [`quantity_${sale.typeId}`]: '1' }).toString(),
    redirect: 'manual',
  });
  expect(chosen.status).toBe(303);
  const checkoutUrl = new URL(chosen.headers.get('location')!, pagesOrigin).toString();
  expect((await payCheckout(checkoutUrl, { email, first_name: 'Wren', last_name: 'Web', ...GOOD_CARD })).status).toBe(303);
  const [mail] = await waitForMail(email, { subject: /Your tickets/ });
  expect(await mailedCodes(mail!)).toHaveLength(1);
  expect(mail!.text).toContain('Attendee: Wren Web');
});

describe('a transfer', () => {
  it("mails the new attendee the new code (the old one no longer checks in) and tells the previous one", async () => {
    const buyer = uniqueAddress('giver');
    const taker = uniqueAddress('taker');
    const orderId = await buy(buyer, 1);
    await waitForMail(buyer, { subject: /Your tickets/ });
    const [before] = await orderTickets(orderId);
    const moved = await tickets.transferTicket({ id: BigInt(before!.id), attendee: { email: taker, firstName: 'Tess', lastName: 'Taker' } }, operatorContext(org.id));
    const newCode = (await ticket(before!.id)).barcode;
    expect(newCode).toBe(moved.barcode);
    expect(newCode).not.toBe(before!.barcode);

    const [received] = await waitForMail(taker, { subject: /is yours/ });
    expect(await mailedCodes(received!)).toEqual([newCode]);
    expect(received!.text).toContain('Attendee: Tess Taker');
    const [note] = await waitForMail(buyer, { subject: /has moved/ });
    expect(note!.text).toContain(`ticket ${before!.id}`);
    expect(note!.attachments ?? []).toEqual([]); // no code for the previous holder

    const old = await api<{ error: { code: string } }>(`/events/${sale.eventId}/check_ins`, { method: 'POST', body: { code: before!.barcode } });
    expect(old.status).toBe(404);
    const scanned = await api<{ result: string }>(`/events/${sale.eventId}/check_ins`, { method: 'POST', body: { code: newCode } });
    expect(scanned.body.result).toBe('checked_in');

    // A resend of the order to its buyer never carries the ticket that moved on: here nothing is left to send.
    const resend = await tickets.resendOrderMail({ orderId, requestedBy: 'e2e' }, operatorContext(org.id));
    let state = resend.state;
    for (const deadline = Date.now() + 20_000; state === 'pending' && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      state = (await tickets.listOrderMails({ orderId }, operatorContext(org.id))).data.find((m) => m.id === resend.id)!.state;
    }
    expect(state).toBe('skipped');
    expect(await mailTo(buyer)).toHaveLength(2); // the order's email and the note, nothing more
  });

  it('to an address that cannot be mailed: the transfer stands, the email is recorded as failed with the reason', async () => {
    const orderId = await buy(uniqueAddress('keeper'), 1);
    const [t] = await orderTickets(orderId);
    // Passes the transfer's check, but is two addresses to a mail system.
    await tickets.transferTicket({ id: BigInt(t!.id), attendee: { email: 'first,second@example.com' } }, operatorContext(org.id));
    expect((await ticket(t!.id)).attendee.email).toBe('first,second@example.com');
    let failed: { ticketId?: bigint; lastError?: string }[] = [];
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
      failed = (await tickets.listFailedMails({ limit: 10 }, operatorContext(org.id))).data.filter((m) => m.ticketId === BigInt(t!.id));
      if (failed.length > 0) break;
    }
    expect(failed).toEqual([expect.objectContaining({ lastError: expect.stringContaining('not an email address') })]);
  });
});

it("a test key's dry run mails nobody", async () => {
  const testKey = await issueKey(org.id, ['orders:write'], 'test');
  const [customer, guest, live] = [uniqueAddress('dry-customer'), uniqueAddress('dry-guest'), uniqueAddress('after-dry')];
  const session = await api<{ dry_run: boolean }>('/checkout_sessions', {
    method: 'POST',
    key: testKey,
    body: { event_id: sale.slug, items: [{ ticket_type_id: sale.typeId, quantity: 1 }], customer: { email: customer } },
  });
  expect(session.body.dry_run).toBe(true);
  const comps = await api<{ dry_run: boolean }>('/comp_tickets', {
    method: 'POST',
    key: testKey,
    headers: { 'idempotency-key': `dry-${Date.now()}` },
    body: { event_id: sale.slug, ticket_type_id: sale.typeId, attendees: [{ email: guest, name: 'Dry Guest' }] },
  });
  expect(comps.body.dry_run).toBe(true);
  // A live order placed afterwards is mailed: by then anything the dry runs had queued would be too.
  await buy(live, 1);
  await waitForMail(live);
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(await mailTo(customer)).toEqual([]);
  expect(await mailTo(guest)).toEqual([]);
});
