import type { DeliveryRow } from '../storage/delivery-repository';
import { deliveryAttemptView, deliveryOrigin } from './delivery-view';

const row = (changes: Partial<DeliveryRow>): DeliveryRow => ({
  id: '7',
  endpoint_id: '3',
  event_id: 'evt_1',
  event_type: 'order.completed',
  attempt: 1,
  manual: false,
  status: 'failed',
  due_at: new Date('2026-11-25T09:00:00Z'),
  response_status: 500,
  duration_ms: 120,
  error: 'HTTP 500',
  failure_reason: 'status_5xx',
  replay_id: null,
  first_attempt: 1,
  resend: false,
  next_retry_at: null,
  sent_at: new Date('2026-11-25T09:00:01Z'),
  created_at: new Date('2026-11-25T08:59:00Z'),
  ...changes,
});

describe('what queued an attempt', () => {
  it('names the round: a test send, a replay, a resend or the event itself', () => {
    expect(deliveryOrigin(row({ manual: true }))).toBe('test');
    expect(deliveryOrigin(row({ replay_id: '4' }))).toBe('replay');
    expect(deliveryOrigin(row({ resend: true }))).toBe('resend');
    expect(deliveryOrigin(row({}))).toBe('event');
  });
});

describe('the dashboard’s log row', () => {
  it('is the API’s delivery plus when it was due and sent, its origin and whether it is a retry', () => {
    expect(deliveryAttemptView(row({ attempt: 6, first_attempt: 5, resend: true }), 'https://example.com/hooks')).toMatchObject({
      delivery: { object: 'webhook_delivery', id: 7n, attempt: 6, status: 'failed', failureReason: 'status_5xx', endpointUrl: 'https://example.com/hooks' },
      sentAt: '2026-11-25T09:00:01Z',
      dueAt: '2026-11-25T09:00:00Z',
      origin: 'resend',
      retry: true,
    });
  });

  it('shows a waiting attempt as pending, not yet sent, and the first of its round as no retry', () => {
    const view = deliveryAttemptView(row({ status: 'scheduled', sent_at: null, attempt: 5, first_attempt: 5 }), 'https://example.com/hooks');
    expect(view).toMatchObject({ delivery: { status: 'pending' }, sentAt: undefined, retry: false, origin: 'event' });
  });
});
