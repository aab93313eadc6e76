import { composeOrderMail, composeTransferMovedMail, venueTime, type MailEvent } from './ticket-mail-content';
import type { TicketRow } from '../storage/ticket-repository';

const event: MailEvent = {
  id: '7',
  title: 'Night <Show>',
  startsAt: '2031-07-04T10:00:00Z',
  endsAt: null,
  timezone: 'Australia/Sydney',
  doors: '7:00pm',
  venue: { name: 'Enmore Theatre', address: '118-132 Enmore Rd, Newtown NSW 2042' },
};

const ticket = (id: string, overrides: Partial<TicketRow> = {}) =>
  ({ id, barcode: `code${id}`, ticket_type_name: 'Balcony', seat_label: null, attendee_first_name: 'Ann', attendee_last_name: 'Lee', attendee_email: 'ann@example.com', ...overrides }) as TicketRow;

describe('ticket emails', () => {
  it("give times on the venue's clock with the zone named (winter in Sydney is AEST, not UTC)", () => {
    expect(venueTime('2031-07-04T10:00:00Z', 'Australia/Sydney')).toMatch(/^Friday 4 July 2031(,| at) 8:00\s?pm AEST \(Australia\/Sydney\)$/);
  });

  it('carry one inline QR image per ticket and the .ics, name the seat, and escape what the HTML shows', async () => {
    const mail = await composeOrderMail({
      to: { email: 'ann@example.com', name: 'Ann Lee' },
      orderId: 'o-1',
      event,
      tickets: [ticket('1', { seat_label: 'B12' }), ticket('2')],
      ticketPageUrl: 'https://pages.example.com/my-tickets/order/o-1/tok',
      messageId: '<mail-1.order@example.com>',
    });
    expect(mail.attachments!.map((file) => [file.filename, file.cid])).toEqual([
      ['ticket-1.png', 'ticket-1@qr'],
      ['ticket-2.png', 'ticket-2@qr'],
      ['event.ics', undefined],
    ]);
    expect(mail.html).toContain('src="cid:ticket-1@qr"');
    expect(mail.html).toContain('Night &lt;Show&gt;');
    expect(mail.html).not.toContain('<Show>');
    expect(mail.text).toContain('- Balcony, seat B12');
    expect(mail.text).toContain('Doors open 7:00pm (Australia/Sydney)');
    expect(String(mail.attachments![2]!.content)).toContain('DTSTART:20310704T100000Z');
  }, 30_000); // two QR PNGs: a few hundred ms each on a loaded machine, more under Jest's transform

  it("tell a previous holder the ticket moved, without its code", () => {
    const mail = composeTransferMovedMail({ to: { email: 'old@example.com', name: null }, ticket: ticket('3'), event, messageId: '<m@x>' });
    expect(mail.text).not.toContain('code3');
    expect(mail.attachments).toBeUndefined();
    expect(mail.subject).toBe('Your ticket to Night <Show> has moved');
  });
});
