import { composeOfferEmail, offerLink } from './offer-email';

const offer = {
  holdId: '0b6f7a52-5d4c-4b1e-9c1a-3f2e1d0c9b8a',
  organisationId: '42',
  email: 'ada@example.com',
  quantity: 2,
  ticketTypeName: 'GA',
  eventTitle: 'Night Market',
  eventStartsAt: new Date('2027-01-01T09:00:00.000Z'),
  expiresAt: new Date('2026-12-01T10:15:00.000Z'),
};

describe('an offer’s email', () => {
  it('names the tickets, the deadline and the link that opens the offer’s checkout', () => {
    const email = composeOfferEmail(offer, 'https://checkout.example.com/', 'tickets.example.com');
    expect(email).toMatchObject({ to: 'ada@example.com', toName: null, subject: 'Tickets to Night Market are available for you' });
    expect(email.text).toContain('2 GA tickets are now held for you.');
    expect(email.text).toContain('Buy them here before 2026-12-01T10:15:00Z:\nhttps://checkout.example.com/waitlist/42/offers/0b6f7a52-5d4c-4b1e-9c1a-3f2e1d0c9b8a\n');
    expect(email.messageId).toBe('<waitlist-offer-0b6f7a52-5d4c-4b1e-9c1a-3f2e1d0c9b8a@tickets.example.com>');
  });

  it('speaks of one ticket in the singular', () => {
    expect(composeOfferEmail({ ...offer, quantity: 1 }, 'https://c.example.com', 'x').text).toContain('1 GA ticket is now held for you.');
  });

  it('links without doubling slashes', () => {
    expect(offerLink('http://127.0.0.1:4100//', offer)).toBe('http://127.0.0.1:4100/waitlist/42/offers/0b6f7a52-5d4c-4b1e-9c1a-3f2e1d0c9b8a');
  });
});
