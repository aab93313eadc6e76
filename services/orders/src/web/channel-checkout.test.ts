import { refusal } from '../../../shared/test/refusal';
import { chosenItems } from './channel-checkout';
import { chooserPage } from './channel-pages';

describe('chosenItems', () => {
  it('takes the quantity fields above zero, in the order sent, and ignores other fields', () => {
    expect(chosenItems({ token: 't', quantity_12: '2', quantity_7: '0', quantity_9: '', quantity_3: ' 1 ', origin: 'https://evil.example' })).toEqual([
      { ticketTypeId: '12', quantity: 2 },
      { ticketTypeId: '3', quantity: 1 },
    ]);
  });

  it('asks for at least one ticket', () => {
    expect(refusal(() => chosenItems({ quantity_1: '0' }))).toMatchObject({ code: 'parameter_missing', param: 'items', message: 'Choose at least one ticket.' });
    expect(refusal(() => chosenItems({})).code).toBe('parameter_missing');
  });

  it.each(['-1', '1.5', 'two', '1e3', '1000', '0x10'])('refuses the quantity %j on its ticket type', (value) => {
    expect(refusal(() => chosenItems({ quantity_4: '1', quantity_5: value }))).toMatchObject({ code: 'parameter_invalid', param: 'quantity_5' });
  });
});

describe('chooserPage', () => {
  const event = { title: 'Rock & <Roll>', startsAt: '2026-12-31T09:00:00Z', timezone: 'Australia/Melbourne', venue: 'Hall "A"' };
  const types = [
    { id: '5', name: 'GA <b>', price: '42.00', status: 'on_sale', maxPerOrder: 8 },
    { id: '6', name: 'VIP', price: '99.00', status: 'sold_out', maxPerOrder: 4 },
  ];

  it('labels each quantity, offers only types on sale and escapes what the catalog says', () => {
    const html = chooserPage('/embed/1/events/9', 'tok"en', event, types);
    expect(html).toContain('<label for="quantity_5">GA &lt;b&gt;</label>');
    expect(html).toContain('name="quantity_5" min="0" max="8"');
    expect(html).not.toContain('name="quantity_6"');
    expect(html).toContain('Sold out');
    expect(html).toContain('value="tok&quot;en"');
    expect(html).toContain('Rock &amp; &lt;Roll&gt;');
    expect(html).not.toContain('role="alert"');
  });

  it('offers no form when nothing is on sale, and points a sold-out event to its waiting list', () => {
    const soldOut = chooserPage('/web/1/events/9', 't', event, [types[1]!], {}, { href: '/waitlist/1/9', newTab: false });
    expect(soldOut).not.toContain('Continue to payment');
    expect(soldOut).not.toContain('<form');
    expect(soldOut).toContain('Sold out.');
    expect(soldOut).toContain('<a href="/waitlist/1/9">Join the waiting list</a>');
    // Framed by a partner's site, the list opens in a tab of its own.
    expect(chooserPage('/embed/1/events/9', 't', event, types, {}, { href: '/waitlist/1/9', newTab: true })).toContain('<a href="/waitlist/1/9" target="_blank" rel="noopener">Join the waiting list</a>');
    const notYet = chooserPage('/web/1/events/9', 't', event, [{ ...types[0]!, status: 'not_yet_on_sale' }], {}, { href: '/waitlist/1/9', newTab: false });
    expect(notYet).not.toContain('Continue to payment');
    expect(notYet).not.toContain('waiting list');
  });

  it('shows an error as an alert tied to the field it is about, keeping what was typed', () => {
    const html = chooserPage('/embed/1/events/9', 't', event, types, { quantities: { '5': '<9>' }, error: 'At most 8 <tickets>.', errorTicketType: '5' });
    expect(html).toContain('<p class="error" role="alert" id="form-error" data-testid="error">At most 8 &lt;tickets&gt;.</p>');
    expect(html).toContain('value="&lt;9&gt;" aria-invalid="true" aria-describedby="form-error"');
  });
});
