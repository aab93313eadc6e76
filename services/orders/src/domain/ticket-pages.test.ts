import { create } from '@bufbuild/protobuf';
import { gen } from '@partner-api/shared';
import { heldByBuyer, isScannable } from './ticket-pages';

const ticket = (status: string, email?: string) => create(gen.tickets.TicketSchema, { id: 1n, barcode: 'CODE', status, attendee: { email } });

describe('which tickets a buyer’s page shows', () => {
  it('keeps tickets whose attendee is still the buyer, whatever the case of the email', () => {
    expect(heldByBuyer(ticket('valid', 'Ann@Example.com'), 'ann@example.com')).toBe(true);
    expect(heldByBuyer(ticket('refunded', 'ann@example.com'), 'ann@example.com')).toBe(true);
  });

  it('leaves out a ticket transferred to someone else', () => {
    expect(heldByBuyer(ticket('valid', 'ben@example.com'), 'ann@example.com')).toBe(false);
  });

  it('keeps the tickets of an order placed without an email', () => {
    expect(heldByBuyer(ticket('valid'), null)).toBe(true);
    expect(heldByBuyer(ticket('valid', 'ben@example.com'), null)).toBe(false);
  });
});

describe('which tickets carry a code', () => {
  it.each([
    ['valid', true],
    ['checked_in', true],
    ['refunded', false],
    ['void', false],
  ])('%s: %s', (status, scannable) => {
    expect(isScannable(ticket(status))).toBe(scannable);
  });
});
