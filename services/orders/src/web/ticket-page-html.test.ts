import { create } from '@bufbuild/protobuf';
import { gen } from '@partner-api/shared';
import type { PageTicket, TicketPage } from '../domain/ticket-pages';
import { ticketPageHtml } from './ticket-page-html';

const ticket = (id: number, fields: { status?: string; seatLabel?: string; attendee?: { firstName?: string; lastName?: string } } = {}): PageTicket =>
  create(gen.tickets.TicketSchema, { id: BigInt(id), barcode: `CODE${id}AAAAAAAAAAAAAAAAA`, status: 'valid', ticketTypeName: 'GA', eventId: 1n, ...fields });

const page = (tickets: PageTicket[], transferredAway = 0): TicketPage => ({
  event: { title: 'Night <One>', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Sydney', doors: '7:00pm', venueName: 'Hall', address: '1 Quay St, Sydney' },
  tickets,
  transferredAway,
});

const links = { pdf: '/p/tickets.pdf', pass: (id: bigint) => `/p/passes/${id}.pkpass` };

describe('the ticket page', () => {
  it('shows a scannable ticket’s QR code as inline SVG with its code, seat and a pass link', async () => {
    const html = await ticketPageHtml(page([ticket(1, { seatLabel: 'B-12', attendee: { firstName: 'Ann', lastName: 'Lee' } })]), links);
    expect(html).toMatch(/<div class="qr" data-testid="qr"><svg role="img" aria-label="QR code of ticket 1, GA · Seat B-12"/);
    expect(html).toContain('<p class="code" data-testid="barcode">CODE1AAAAAAAAAAAAAAAAA</p>');
    expect(html).toContain('<h2>GA · Seat B-12</h2>');
    expect(html).toContain('<p>Ann Lee</p>');
    expect(html).toContain('href="/p/passes/1.pkpass"');
    expect(html).toContain('href="/p/tickets.pdf"');
    // The venue's clock, its zone named, and every value escaped.
    expect(html).toContain('Thursday 31 December 2026 at 8:00 pm AEDT (Australia/Sydney)');
    expect(html).toContain('Night &lt;One&gt;');
    expect(html).not.toContain('<img');
  });

  it('shows refunded and void tickets as such, without a code, and offers no download for them', async () => {
    const html = await ticketPageHtml(page([ticket(1, { status: 'refunded' }), ticket(2, { status: 'void' })]), links);
    expect(html).toContain('Refunded: this ticket no longer admits anyone.');
    expect(html).toContain('Void: this ticket no longer admits anyone.');
    expect(html).not.toContain('CODE1');
    expect(html).not.toContain('CODE2');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain('.pkpass');
    expect(html).not.toContain('tickets.pdf');
  });

  it('still shows a checked-in ticket’s code (re-entry), marked as checked in', async () => {
    const html = await ticketPageHtml(page([ticket(3, { status: 'checked_in' })]), links);
    expect(html).toContain('Checked in already.');
    expect(html).toContain('CODE3');
  });

  it('says how many tickets moved to other attendees, and offers no passes when none are configured', async () => {
    const html = await ticketPageHtml(page([ticket(1)], 2), { pdf: links.pdf });
    expect(html).toContain('2 tickets of this order were transferred to another attendee and are shown on their page.');
    expect(html).not.toContain('Apple Wallet');
  });
});
