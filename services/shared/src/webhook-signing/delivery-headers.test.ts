import { deliveryHeaders } from './delivery-headers';
import { verifySignature } from './signature';

const now = new Date('2026-11-23T12:00:00Z');

describe('delivery requests', () => {
  it('carry the event id, type, attempt and a signature a receiver verifies', () => {
    const body = '{"id":"evt_1"}';
    const headers = deliveryHeaders({ id: 'evt_1', type: 'order.completed' }, 3, body, ['whsec_new', 'whsec_old'], now);
    expect(headers).toMatchObject({ 'Service-Event-Id': 'evt_1', 'Service-Event-Type': 'order.completed', 'Service-Delivery-Attempt': '3' });
    const seconds = Math.floor(now.getTime() / 1000);
    expect(headers['Service-Signature']).toMatch(new RegExp(`^t=${seconds},v1=[0-9a-f]{64},v1=[0-9a-f]{64}$`));
    expect(verifySignature(headers['Service-Signature']!, body, 'whsec_old', seconds)).toBe(true);
  });
});

describe('Standard Webhooks headers', () => {
  it('sit beside the spec headers, with the same id and timestamp', () => {
    const headers = deliveryHeaders({ id: 'evt_1', type: 'order.completed' }, 1, '{}', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], now);
    expect(headers['webhook-id']).toBe(headers['Service-Event-Id']);
    expect(headers['Service-Signature']).toMatch(new RegExp(`^t=${headers['webhook-timestamp']},`));
    expect(headers['webhook-signature']).toMatch(/^v1,\S+$/);
  });
});
