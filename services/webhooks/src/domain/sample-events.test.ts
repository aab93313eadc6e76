import { API_VERSION, EVENT_TYPES } from '@partner-api/shared';
import { sampleDomainEvent, testEventType } from './sample-events';

// The object each type carries in data.object, and the extra data keys (the spec's event table).
const EXPECTED: Record<string, { object: string; extra: string[] }> = {
  'order.completed': { object: 'order', extra: [] },
  'order.refunded': { object: 'order', extra: ['refunded_ticket_ids'] },
  'ticket.issued': { object: 'ticket', extra: [] },
  'ticket.transferred': { object: 'ticket', extra: ['previous_attendee_email'] },
  'ticket.checked_in': { object: 'ticket', extra: [] },
  'event.published': { object: 'event', extra: [] },
  'event.updated': { object: 'event', extra: ['changed_fields'] },
  'event.cancelled': { object: 'event', extra: [] },
  'event.sold_out': { object: 'event', extra: [] },
  'ticket_type.low_inventory': { object: 'ticket_type', extra: ['threshold'] },
  'waitlist.released': { object: 'waitlist_release', extra: [] },
};

describe('test event samples', () => {
  it.each(EVENT_TYPES.map((type) => [type]))('%s has the delivery body shape, livemode false', (type) => {
    const now = new Date('2026-11-23T12:00:00Z');
    const event = sampleDomainEvent(type, 42, now);
    expect(event).toMatchObject({ object: 'event', type, api_version: API_VERSION, created: now.getTime() / 1000, livemode: false, organisation_id: 42 });
    expect(event.id).toMatch(/^evt_test_[0-9A-Za-z]{20}$/);
    expect((event.data.object as { object: string }).object).toBe(EXPECTED[type]!.object);
    expect(Object.keys(event.data).sort()).toEqual(['object', ...EXPECTED[type]!.extra].sort());
    expect(Object.keys(event).at(-1)).toBe('ordering');
    expect(event.ordering).toMatchObject({ sequence: 1, updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
  });

  it('orders each sample under its object, as live events are', () => {
    const ticket = sampleDomainEvent('ticket.checked_in', 1);
    const object = ticket.data.object as { id: number; updated_at: string };
    expect(ticket.ordering).toEqual({ key: `ticket:${object.id}`, sequence: 1, updated_at: object.updated_at });
    expect(sampleDomainEvent('waitlist.released', 1).ordering?.key).toBe('event:1001');
  });

  it('writes every field of an object, unset ones as null, as the API does', () => {
    const order = sampleDomainEvent('order.completed', 1).data.object as Record<string, unknown>;
    expect(order).toMatchObject({ channel_origin: null, refunded_amount: '0.00', payment_method: 'stripe' });
    const ticket = (order.tickets as Array<Record<string, unknown>>)[0]!;
    expect(ticket).toMatchObject({ object: 'ticket', seat_label: null, checked_in_at: null, attendee: { first_name: 'Alex', last_name: 'Sample', email: 'alex.sample@example.com' } });
  });

  it('falls back to order.completed for no type or an unrecognised one', () => {
    expect(testEventType(undefined)).toBe('order.completed');
    expect(testEventType('order.shipped')).toBe('order.completed');
    expect(testEventType('event.cancelled')).toBe('event.cancelled');
  });
});
