/**
 * The buyer's ticket page (D420–D425) after a payment on the hosted
 * checkout: the confirmation links to it; it shows each ticket's current
 * barcode as a QR code; its PDF renders (pdftoppm) to QR codes that decode
 * to those barcodes; each Wallet pass carries the barcode, a manifest whose
 * hashes hold and a signature openssl verifies against the local signing
 * pair. A transfer moves the ticket from the buyer's page to the new
 * attendee's own page; refunded and void tickets show no code. In Chromium
 * at 390 px the page fits the screen and axe-core finds nothing serious.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { createServiceClient, DEVELOPMENT_TICKET_PAGE_SECRET, gen, localGrpcAddress, ticketHolderPageUrl, type ServiceClient } from '@partner-api/shared';
import { api as callApi } from './support/api';
import { launchBrowser } from './support/browser';
import { GOOD_CARD, payCheckout, testId } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, ordersClient, uniqueSlug, type InventoryClient, type OrdersClient } from './support/operator';
import { problemsOf } from './support/page-checks';
import { localSignerCertificate, openPass, qrCodesOfPdf } from './support/ticket-downloads';

// Rendering a PDF, unzipping passes and openssl each start a process.
jest.setTimeout(60_000);

interface Ticket {
  id: number;
  barcode: string;
  status: string;
}

type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;

let org: { id: number; key: string };
let inventory: InventoryClient;
let orders: OrdersClient;
let tickets: TicketsClient;
let browser: Browser;
let pageUrl: string;
let ticketIds: number[];

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });
const barcodeOf = async (id: number) => (await api<Ticket>(`/tickets/${id}`)).body.barcode;

/** The tickets a page shows: id, status, and the barcode under its QR code (none for a ticket without one). */
function ticketsOn(html: string): Array<{ id: number; status: string; barcode?: string; qr: boolean }> {
  return [...html.matchAll(/<li class="ticket" data-testid="ticket" data-ticket-id="(\d+)" data-status="(\w+)">(.*?)<\/li>/gs)].map(([, id, status, body]) => ({
    id: Number(id),
    status: status!,
    barcode: testId(body!, 'barcode'),
    qr: body!.includes('data-testid="qr"'),
  }));
}

async function page(url: string): Promise<{ status: number; html: string; headers: Headers }> {
  const response = await fetch(url);
  return { status: response.status, html: await response.text(), headers: response.headers };
}

async function download(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

beforeAll(async () => {
  inventory = inventoryClient();
  orders = ordersClient();
  tickets = createServiceClient(gen.tickets.TicketsService, process.env.TICKETS_GRPC_ADDR ?? localGrpcAddress('tickets'));
  browser = await launchBrowser();
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'attendees:read']);
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('ticket-page');
  const venue = await inventory.upsertVenue(
    { fields: { name: 'Harbour Hall', slug: uniqueSlug('harbour'), line1: '1 Quay St', locality: 'Sydney', state: 'NSW', postalCode: '2000', country: 'AU', lat: -33.8587, lng: 151.2140 } },
    ctx,
  );
  const startsAt = new Date(Date.now() + 14 * 86_400_000).toISOString();
  await inventory.upsertEvent({ fields: { slug, title: 'Ticket Page Night', startsAt, timezone: 'Australia/Sydney', venueId: venue.id, doors: '7:00pm' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 50n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'General Admission', price: '30.00', bookingFee: '0.00', maxPerOrder: 8, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);

  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    body: { event_id: slug, items: [{ ticket_type_id: Number(type.id), quantity: 4 }] },
  });
  expect(session.status).toBe(201);
  const paid = await payCheckout(session.body.checkout_url, { email: 'Buyer.Ann@example.com', first_name: 'Ann', last_name: 'Buyer', ...GOOD_CARD });
  expect(paid.status).toBe(303);
  const confirmation = await page(session.body.checkout_url);
  const link = /<a href="([^"]+)"[^>]*data-testid="ticket-page-link"/.exec(confirmation.html);
  expect(link).not.toBeNull();
  pageUrl = link![1]!.replace(/&amp;/g, '&');
  const order = await api<{ tickets: Ticket[] }>(`/orders/${session.body.id}`);
  ticketIds = order.body.tickets.map((ticket) => ticket.id).sort((a, b) => a - b);
  expect(ticketIds).toHaveLength(4);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  inventory?.close();
  orders?.close();
  tickets?.close();
}, 30_000);

describe('the buyer’s ticket page', () => {
  it('opens from the confirmation under a signed link, showing every ticket’s current barcode as a QR code', async () => {
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/my-tickets\/order\/[0-9a-f-]{36}\/[A-Za-z0-9_-]{22}$/);
    const shown = await page(pageUrl);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.html).toContain('Ticket Page Night');
    expect(shown.html).toContain('Harbour Hall');
    // The start on the venue's clock, its zone named.
    expect(shown.html).toMatch(/ at \d{1,2}:\d{2} [ap]m AE[DS]T \(Australia\/Sydney\)/);
    const listed = ticketsOn(shown.html);
    expect(listed.map((ticket) => ticket.id)).toEqual(ticketIds);
    for (const ticket of listed) {
      expect(ticket).toMatchObject({ status: 'valid', qr: true, barcode: await barcodeOf(ticket.id) });
    }
  });

  it('is not found under a changed token or another order id', async () => {
    const token = pageUrl.slice(pageUrl.lastIndexOf('/') + 1);
    const forged = `${pageUrl.slice(0, -token.length)}${token[0] === 'A' ? 'B' : 'A'}${token.slice(1)}`;
    expect((await page(forged)).status).toBe(404);
    expect((await page(pageUrl.replace(/order\/[0-9a-f-]{36}/, `order/${randomUUID()}`))).status).toBe(404);
    expect((await download(`${forged}/tickets.pdf`)).status).toBe(404);
  });

  it('serves a PDF whose pages render to QR codes that decode to the tickets’ barcodes', async () => {
    const pdf = await download(`${pageUrl}/tickets.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    const decoded = await qrCodesOfPdf(pdf.body);
    expect(decoded).toEqual(await Promise.all(ticketIds.map(barcodeOf)));
  });

  it('serves a Wallet pass per ticket: barcode as QR, hashes in the manifest, a signature openssl verifies', async () => {
    const id = ticketIds[0]!;
    const pass = await download(`${pageUrl}/passes/${id}.pkpass`);
    expect(pass.status).toBe(200);
    expect(pass.type).toBe('application/vnd.apple.pkpass');
    const opened = await openPass(pass.body);
    expect(opened.passJson.barcodes[0]).toMatchObject({ format: 'PKBarcodeFormatQR', message: await barcodeOf(id) });
    expect(opened.passJson.serialNumber).toBe(`ticket-${id}`);
    expect(opened.passJson.relevantDate).toBeDefined();
    expect(opened.passJson.locations?.[0]).toMatchObject({ latitude: -33.8587, longitude: 151.214 });
    expect(opened.manifestProblems).toEqual([]);
    expect(opened.signatureVerified).toBe(true);
    expect(opened.signer!.fingerprint256).toBe(localSignerCertificate().fingerprint256);
    // Another order's ticket is not under this page.
    expect((await download(`${pageUrl}/passes/999999999.pkpass`)).status).toBe(404);
  });
});

describe('after a transfer, a void and a refund', () => {
  let moved: number;
  let voided: number;
  let refunded: number;

  beforeAll(async () => {
    [, moved, voided, refunded] = ticketIds as [number, number, number, number];
    const ctx = operatorContext(org.id);
    await tickets.transferTicket({ id: BigInt(moved), attendee: { email: 'new.holder@example.com', firstName: 'Nia', lastName: 'Holder' } }, ctx);
    await tickets.voidTicket({ id: BigInt(voided), reason: 'chargeback' }, ctx);
    const orderId = /order\/([0-9a-f-]{36})\//.exec(pageUrl)![1]!;
    await orders.refundOrder({ id: orderId, ticketIds: [BigInt(refunded)], refundId: randomUUID() }, ctx);
  });

  it('the buyer’s page no longer shows the transferred ticket, and shows the refunded and void ones without a code', async () => {
    const shown = await page(pageUrl);
    const listed = ticketsOn(shown.html);
    expect(listed.map((ticket) => ticket.id)).not.toContain(moved);
    expect(shown.html).toContain(`data-ticket-id="${ticketIds[0]}"`);
    expect(testId(shown.html, 'transferred')).toMatch(/^1 ticket of this order was transferred/);
    expect(listed.find((ticket) => ticket.id === voided)).toEqual({ id: voided, status: 'void', barcode: undefined, qr: false });
    expect(listed.find((ticket) => ticket.id === refunded)).toEqual({ id: refunded, status: 'refunded', barcode: undefined, qr: false });
    // Neither the moved ticket's old or new code, nor the void or refunded ones' codes, are anywhere on the page.
    for (const id of [moved, voided, refunded]) expect(shown.html).not.toContain(await barcodeOf(id));
    // Downloads follow the page: the PDF holds the one ticket still valid here, and no pass is made for the others.
    expect(await qrCodesOfPdf((await download(`${pageUrl}/tickets.pdf`)).body)).toEqual([await barcodeOf(ticketIds[0]!)]);
    for (const id of [moved, voided, refunded]) expect((await download(`${pageUrl}/passes/${id}.pkpass`)).status).toBe(404);
  });

  it('the new attendee’s own page shows the ticket with its new code, and stops when it moves on again', async () => {
    const base = new URL(pageUrl).origin;
    const secret = process.env.TICKET_PAGE_SECRET ?? DEVELOPMENT_TICKET_PAGE_SECRET;
    const holderUrl = ticketHolderPageUrl({ baseUrl: base, organisationId: String(org.id), ticketId: String(moved), attendeeEmail: 'new.holder@example.com', secret });
    const shown = await page(holderUrl);
    expect(shown.status).toBe(200);
    expect(ticketsOn(shown.html)).toEqual([{ id: moved, status: 'valid', barcode: await barcodeOf(moved), qr: true }]);
    expect(await qrCodesOfPdf((await download(`${holderUrl}/tickets.pdf`)).body)).toEqual([await barcodeOf(moved)]);
    expect((await openPass((await download(`${holderUrl}/passes/${moved}.pkpass`)).body)).passJson.barcodes[0]!.message).toBe(await barcodeOf(moved));

    // The link was the new attendee's: once the ticket goes to a third, it shows nothing.
    await tickets.transferTicket({ id: BigInt(moved), attendee: { email: 'third@example.com' } }, operatorContext(org.id));
    expect((await page(holderUrl)).status).toBe(404);
  });

  it('in Chromium at 390 px the page fits the screen and axe-core finds no serious or critical violation', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const tab = await context.newPage();
      await tab.goto(pageUrl);
      await expect(tab.getByTestId('ticket').count()).resolves.toBe(3);
      expect(await problemsOf(tab)).toEqual({ violations: [], overflow: 0 });
      // The QR code is drawn most of the screen wide: a door scanner reads it off the phone.
      const qr = await tab.getByTestId('qr').first().boundingBox();
      expect(qr!.width).toBeGreaterThanOrEqual(300);
      await expect(tab.getByTestId('no-code').count()).resolves.toBe(2);
    } finally {
      await context.close();
    }
  });
});
