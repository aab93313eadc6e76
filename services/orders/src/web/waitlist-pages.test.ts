import { create } from '@bufbuild/protobuf';
import { gen } from '@partner-api/shared';
import { joinedPage, joinPage } from './waitlist-pages';

const form = create(gen.inventory.WaitlistFormSchema, {
  organisationId: 7n,
  event: { id: 9n, title: 'Rock & <Roll>', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Melbourne', venue: { name: 'Hall "A"' } },
  ticketTypes: [
    { id: 11n, name: 'GA <b>', status: 'sold_out', maxPerOrder: 6 },
    { id: 12n, name: 'VIP', status: 'on_sale', maxPerOrder: 2 },
  ],
});

describe('the waiting-list join page', () => {
  it('escapes what partners and customers wrote and posts to the organisation’s event', () => {
    const html = joinPage(form, { email: '"><script>x</script>', ticketTypeId: '12' });
    expect(html).not.toMatch(/<script>x|<b>|<Roll>/);
    expect(html).toContain('<h1>Rock &amp; &lt;Roll&gt;</h1>');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).toContain('<form method="post" action="/waitlist/7/9">');
    expect(html).toContain('<option value="11">GA &lt;b&gt; (sold out, up to 6 per order)</option><option value="12" selected>VIP (on sale, up to 2 per order)</option>');
    expect(html).toContain('max="6"');
  });

  it('announces an error and ties it to its field only', () => {
    const html = joinPage(form, { error: 'Enter a valid email address.', errorField: 'email' });
    expect(html).toContain('<p class="error" role="alert" id="join-error" data-testid="error">Enter a valid email address.</p>');
    expect(html).toMatch(/name="email"[^>]*aria-invalid="true" aria-describedby="join-error"/);
    expect(html).not.toMatch(/name="quantity"[^>]*aria-invalid/);
    expect(joinPage(form)).not.toContain('role="alert"');
  });

  it('confirms a join, or says an offer is already out', () => {
    const entry = (state: string) => create(gen.inventory.WaitlistEntrySchema, { email: 'a<b@example.com', quantity: 1, state });
    expect(joinedPage(form, entry('waiting'))).toContain('You are on the waiting list for 1 ticket. We will email a&lt;b@example.com when tickets come back.');
    expect(joinedPage(form, entry('offered'))).toContain('Tickets are already offered to you');
  });
});
