import type { SessionRow } from '../storage/checkout-repository';
import { checkoutPage, completedPage, holdLeft, localStart, processingPage } from './pages';

const session = (overrides: Partial<SessionRow> = {}): SessionRow => ({
  id: '6f1c2d4e-0000-4000-8000-000000000001',
  organisation_id: '1',
  event_id: '9',
  status: 'open',
  items: [{ ticket_type_id: '1', pool_id: '2', name: 'GA <b>VIP</b>', quantity: 2, unit_price: '55.00', total: '110.00' }],
  customer: { email: 'ann@example.com', first_name: '"><img src=x onerror=alert(1)>', last_name: null, phone: null },
  subtotal_cents: '11000',
  total_fees_cents: '1000',
  discount_cents: '1100',
  total_cents: '9900',
  metadata: {},
  expires_at: new Date('2026-11-22T10:15:00Z'),
  order_id: null,
  coupon_id: null,
  paid_at: null,
  sales_channel: 'api',
  channel_origin: null,
  created_at: new Date('2026-11-22T10:00:00Z'),
  ...overrides,
});
const event = { title: 'Rock & <Roll>', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Melbourne', venue: 'Hall "A"' };

describe('hosted checkout pages', () => {
  it('escapes every value that comes from a partner or a customer', () => {
    const html = checkoutPage(session(), event, { lapsed: false, error: '<script>x</script>' });
    expect(html).not.toMatch(/<img|<script>x|<b>VIP/);
    expect(html).toContain('Rock &amp; &lt;Roll&gt;');
    expect(html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
  });

  it('shows lines, the discount and the total, and asks for a card unless the order is free', () => {
    const html = checkoutPage(session(), event, { lapsed: false });
    expect(html).toContain('−$11.00');
    expect(html).toContain('data-testid="total">$99.00<');
    expect(html).toContain('Pay $99.00');
    expect(html).toContain('name="card_number"');
    const free = checkoutPage(session({ total_cents: '0', subtotal_cents: '0', discount_cents: '0', total_fees_cents: '0' }), event, { lapsed: false });
    expect(free).toContain('Confirm free order');
    expect(free).not.toContain('name="card_number"');
  });

  it("shows the event's start on the venue's clock, with its zone", () => {
    // 09:00 UTC on New Year's Eve is the evening in Melbourne (daylight time), the afternoon in Perth.
    expect(checkoutPage(session(), event, { lapsed: false })).toContain(
      '<time datetime="2026-12-31T09:00:00Z" title="Australia/Melbourne">Thursday 31 December 2026 at 8:00 pm AEDT</time> · Hall &quot;A&quot;',
    );
    expect(completedPage(session({ status: 'completed' }), event)).toContain('8:00 pm AEDT');
    expect(localStart('2027-07-01T09:00:00Z', 'Australia/Melbourne')).toBe('Thursday 1 July 2027 at 7:00 pm AEST');
    expect(localStart('2026-12-31T09:00:00Z', 'Australia/Perth')).toBe('Thursday 31 December 2026 at 5:00 pm AWST');
    expect(localStart('2026-12-31T09:00:00Z', 'Not/A_Zone')).toBe('Thursday 31 December 2026 at 9:00 am UTC');
  });

  it("says when the hold lapsed, and otherwise how long it lasts, on the venue's clock with its zone", () => {
    expect(checkoutPage(session(), event, { lapsed: true })).toContain('has lapsed');
    const now = new Date('2026-11-22T10:00:01Z');
    expect(checkoutPage(session(), event, { lapsed: false }, now)).toContain('Your tickets are held for 15 more minutes, until 9:15 pm AEDT.');
    expect(holdLeft(new Date('2026-11-22T10:15:00Z'), 'Australia/Perth', new Date('2026-11-22T10:14:30Z'))).toBe('for 1 more minute, until 6:15 pm AWST');
    expect(holdLeft(new Date('2026-11-22T10:15:00Z'), 'Not/A_Zone', now)).toBe('for 15 more minutes, until 10:15 am UTC');
  });

  it('keeps what was typed on a refused form, ties the error to its field, and focuses a decline', () => {
    const refused = checkoutPage(session(), event, { lapsed: false, cardName: 'Ann Lee', cardNumber: '4242 4242 4242 4242', cardExpiry: '13/30', error: 'Enter the card expiry as MM/YY.', errorField: 'card_expiry' });
    expect(refused).toContain('name="card_name" autocomplete="cc-name" required value="Ann Lee"');
    expect(refused).toContain('name="card_number" inputmode="numeric" autocomplete="cc-number" required value="4242 4242 4242 4242"');
    expect(refused).toContain('placeholder="MM/YY" required value="13/30" aria-invalid="true" aria-describedby="pay-error" autofocus>');
    expect(refused).toMatch(/<p class="error" role="alert" id="pay-error" data-testid="error">Enter/);
    // The security code is never written back into a page.
    expect(refused).toMatch(/name="card_cvc" inputmode="numeric" autocomplete="cc-csc" required>/);
    const declined = checkoutPage(session(), event, { lapsed: false, error: 'Your card was declined.', declined: true });
    expect(declined).toContain('data-testid="error" tabindex="-1" autofocus>Your card was declined. Try another card: your tickets are still held.</p>');
    expect(declined).not.toContain('aria-invalid="true"');
  });

  it('confirms with the order id and ticket count, and the processing page refreshes itself', () => {
    expect(completedPage(session({ status: 'completed' }), event)).toMatch(/Order <strong data-testid="order-id">6f1c2d4e-0000-4000-8000-000000000001<\/strong>: 2 tickets issued to ann@example\.com/);
    expect(processingPage(session())).toContain('<meta http-equiv="refresh" content="2;url=/checkout/6f1c2d4e-0000-4000-8000-000000000001">');
  });

  it('links the confirmation to the ticket page, in a tab of its own from an embedded checkout (it may not be framed)', () => {
    const url = 'https://checkout.example.com/my-tickets/order/6f1c2d4e-0000-4000-8000-000000000001/abc?x=1&y=2';
    expect(completedPage(session({ status: 'completed' }), event, url)).toContain(
      '<a href="https://checkout.example.com/my-tickets/order/6f1c2d4e-0000-4000-8000-000000000001/abc?x=1&amp;y=2" data-testid="ticket-page-link">Show your tickets and QR codes</a>',
    );
    expect(completedPage(session({ status: 'completed', sales_channel: 'embed' }), event, url)).toContain('target="_blank" rel="noopener" data-testid="ticket-page-link"');
    expect(completedPage(session({ status: 'completed' }), event)).not.toContain('ticket-page-link');
  });
});
