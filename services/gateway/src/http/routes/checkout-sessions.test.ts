import { checkoutSessionId } from './checkout-sessions';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const body = { event_id: 7, items: [{ ticket_type_id: 3, quantity: 2 }] };

describe('checkoutSessionId', () => {
  it('names the same session for the same key, Idempotency-Key and body (key order aside)', () => {
    const id = checkoutSessionId(1, 'order-42', body);
    expect(id).toMatch(UUID_V8);
    expect(checkoutSessionId(1, 'order-42', { items: [{ quantity: 2, ticket_type_id: 3 }], event_id: 7 })).toBe(id);
  });

  it('names another session for another API key, Idempotency-Key or body', () => {
    const id = checkoutSessionId(1, 'order-42', body);
    expect(checkoutSessionId(2, 'order-42', body)).not.toBe(id);
    expect(checkoutSessionId(1, 'order-43', body)).not.toBe(id);
    expect(checkoutSessionId(1, 'order-42', { ...body, event_id: 8 })).not.toBe(id);
  });

  it('is random without an Idempotency-Key', () => {
    expect(checkoutSessionId(1, undefined, body)).not.toBe(checkoutSessionId(1, undefined, body));
  });
});
