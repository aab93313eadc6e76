import {
  DEVELOPMENT_TICKET_PAGE_SECRET,
  ticketHolderPageUrl,
  ticketPageEnv,
  ticketPageUrl,
  verifyTicketHolderToken,
  verifyTicketPageToken,
} from './ticket-page-link';

const secret = 'a-test-secret-that-is-long-enough-0123456789';
const orderId = 'ord_8c3f0f0a-5c2e-4a51-9d6b-2f1d7f4d0b11';

const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('order ticket page links', () => {
  it('puts the order id and a 22-character token under the base URL (one slash, whatever the base ends with)', () => {
    const url = ticketPageUrl({ baseUrl: 'https://pay.example.com/', orderId, secret });
    expect(url).toMatch(new RegExp(`^https://pay\\.example\\.com/my-tickets/order/${orderId}/[A-Za-z0-9_-]{22}$`));
    expect(ticketPageUrl({ baseUrl: 'https://pay.example.com', orderId, secret })).toBe(url);
  });

  it('verifies its own token and refuses another order, another secret, or a changed token', () => {
    const token = lastSegment(ticketPageUrl({ baseUrl: 'http://127.0.0.1:4100', orderId, secret }));
    expect(verifyTicketPageToken({ orderId, token, secret })).toBe(true);
    expect(verifyTicketPageToken({ orderId: `${orderId}x`, token, secret })).toBe(false);
    expect(verifyTicketPageToken({ orderId, token, secret: `${secret}x` })).toBe(false);
    const flipped = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    expect(verifyTicketPageToken({ orderId, token: flipped, secret })).toBe(false);
    expect(verifyTicketPageToken({ orderId, token: token.slice(1), secret })).toBe(false);
    expect(verifyTicketPageToken({ orderId, token: '', secret })).toBe(false);
  });

  it('escapes an order id that is not a plain path segment', () => {
    expect(ticketPageUrl({ baseUrl: 'http://h', orderId: 'a/b', secret })).toContain('/my-tickets/order/a%2Fb/');
  });
});

describe('ticket holder page links', () => {
  const ticketId = '42';
  const organisationId = '7';

  it('holds for the attendee it was made for, whatever the case of the email', () => {
    const token = lastSegment(ticketHolderPageUrl({ baseUrl: 'http://h', organisationId, ticketId, attendeeEmail: 'New.Holder@Example.com', secret }));
    expect(verifyTicketHolderToken({ organisationId, ticketId, attendeeEmail: 'new.holder@example.com', token, secret })).toBe(true);
  });

  it('stops holding once the ticket has another attendee, and never opens an order page', () => {
    const url = ticketHolderPageUrl({ baseUrl: 'http://h', organisationId, ticketId, attendeeEmail: 'b@example.com', secret });
    expect(url).toMatch(/^http:\/\/h\/my-tickets\/ticket\/7\/42\/[A-Za-z0-9_-]{22}$/);
    const token = lastSegment(url);
    expect(verifyTicketHolderToken({ organisationId, ticketId, attendeeEmail: 'c@example.com', token, secret })).toBe(false);
    expect(verifyTicketHolderToken({ organisationId, ticketId: '43', attendeeEmail: 'b@example.com', token, secret })).toBe(false);
    expect(verifyTicketHolderToken({ organisationId: '8', ticketId, attendeeEmail: 'b@example.com', token, secret })).toBe(false);
    expect(verifyTicketPageToken({ orderId: ticketId, token, secret })).toBe(false);
  });
});

describe('ticketPageEnv', () => {
  it('has a development default and refuses a short secret', () => {
    expect(ticketPageEnv.parse({}).TICKET_PAGE_SECRET).toBe(DEVELOPMENT_TICKET_PAGE_SECRET);
    expect(ticketPageEnv.safeParse({ TICKET_PAGE_SECRET: 'short' }).success).toBe(false);
  });
});
