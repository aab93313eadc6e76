import { buildEvent } from '../events';
import { orderingKey, orderingUpdatedAt } from './sequence';

describe('event ordering', () => {
  it('keys an event by the type and id of its object', () => {
    expect(orderingKey({ object: 'ticket', id: 1001 }, 'ticket:1001')).toBe('ticket:1001');
    expect(orderingKey({ object: 'order', id: '0b7c2f4e-0000-4000-8000-000000000001' }, 'order:x')).toBe('order:0b7c2f4e-0000-4000-8000-000000000001');
    // A low-stock ticket type travels on its event's partition but is an object of its own.
    expect(orderingKey({ object: 'ticket_type', id: 7 }, 'event:42')).toBe('ticket_type:7');
  });

  it('keys an object without an id (a waitlist release) by the partition key', () => {
    expect(orderingKey({ object: 'waitlist_release', event_id: 42, pool_id: 3, released_count: 2 }, 'event:42')).toBe('event:42');
  });

  it("takes the object's updated_at, or the event's time when the object has none", () => {
    const now = new Date('2026-11-25T08:00:00.750Z');
    expect(orderingUpdatedAt(buildEvent('ticket.checked_in', { organisationId: 1, livemode: true }, { object: 'ticket', id: 1, updated_at: '2026-11-25T07:59:59Z' }, {}, now))).toBe('2026-11-25T07:59:59Z');
    expect(orderingUpdatedAt(buildEvent('ticket_type.low_inventory', { organisationId: 1, livemode: true }, { object: 'ticket_type', id: 7 }, {}, now))).toBe('2026-11-25T08:00:00Z');
  });
});
