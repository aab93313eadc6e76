import type { ApiError } from '@partner-api/shared';
import type { EventRow, TicketTypeRow } from '../storage/catalog-repository';
import { day, eventRow, NOW, ticketTypeRow } from './catalog.fixtures';
import { planCheckout, type RequestedLine } from './checkout-rules';

const event = eventRow;
const type = (id: string, overrides: Partial<TicketTypeRow> = {}) =>
  ticketTypeRow({ id, name: `Type ${id}`, price_cents: '5950', booking_fee_cents: '350', pool_ids: ['p1'], ...overrides });

const TYPES = [
  type('ga'),
  type('flexi', { pool_ids: ['p1', 'p2'] }),
  type('seated', { seated: true }),
  type('hidden', { hidden: true }),
  type('later', { sale_starts_at: day(1) }),
  type('over', { sale_ends_at: day(-1) }),
  type('group', { min_per_order: 4, max_per_order: 8 }),
  type('other-event', { event_id: '2' }),
];

const failure = (lines: RequestedLine[], ev: EventRow = event()) => {
  try {
    planCheckout(ev, TYPES, lines, NOW);
    return undefined;
  } catch (error) {
    const { code, param, httpStatus } = error as ApiError;
    return { code, param, httpStatus };
  }
};

describe('planning a checkout', () => {
  it('prices lines in integer cents and sums tickets per pool', () => {
    const plan = planCheckout(event(), TYPES, [{ ticketTypeId: 'ga', quantity: 3 }, { ticketTypeId: 'flexi', quantity: 2, poolId: 'p1' }, { ticketTypeId: 'flexi', quantity: 1, poolId: 'p2' }], NOW);
    expect(plan.lines.map((line) => [line.ticketTypeId, line.poolId, line.quantity, line.totalCents])).toEqual([
      ['ga', 'p1', 3, 17850n],
      ['flexi', 'p1', 2, 11900n],
      ['flexi', 'p2', 1, 5950n],
    ]);
    expect(plan.perPool).toEqual(new Map([['p1', 5], ['p2', 1]]));
  });

  it('merges lines for the same ticket type and pool', () => {
    const plan = planCheckout(event(), TYPES, [{ ticketTypeId: 'ga', quantity: 2 }, { ticketTypeId: 'ga', quantity: 3 }], NOW);
    expect(plan.lines).toHaveLength(1);
    expect(plan.lines[0]).toMatchObject({ quantity: 5, totalCents: 29750n });
  });

  it.each([
    ['a draft event', { status: 'draft' as const }],
    ['a cancelled event', { status: 'cancelled' as const }],
    ['an ended event', { starts_at: day(-2), ends_at: day(-1.9) }],
    ['an event not on sale yet', { on_sale_at: day(1) }],
  ])('refuses %s with 422 event_not_on_sale', (_, overrides) => {
    expect(failure([{ ticketTypeId: 'ga', quantity: 1 }], event(overrides))).toEqual({ code: 'event_not_on_sale', param: 'event_id', httpStatus: 422 });
  });

  it.each([
    ['an unknown ticket type', [{ ticketTypeId: 'nope', quantity: 1 }], 'resource_missing', 'items[0].ticket_type_id', 404],
    ["another event's ticket type", [{ ticketTypeId: 'other-event', quantity: 1 }], 'resource_missing', 'items[0].ticket_type_id', 404],
    ['a multi-pool type without pool_id', [{ ticketTypeId: 'flexi', quantity: 1 }], 'parameter_missing', 'items[0].pool_id', 400],
    ['a pool the type does not sell from', [{ ticketTypeId: 'ga', quantity: 1, poolId: 'p2' }], 'parameter_invalid', 'items[0].pool_id', 400],
    ['a seated type', [{ ticketTypeId: 'seated', quantity: 1 }], 'seat_selection_required', 'items[0].ticket_type_id', 422],
    ['a hidden type', [{ ticketTypeId: 'hidden', quantity: 1 }], 'ticket_type_unavailable', 'items[0].ticket_type_id', 422],
    ['a type not on sale yet', [{ ticketTypeId: 'later', quantity: 1 }], 'ticket_type_unavailable', 'items[0].ticket_type_id', 422],
    ['a type whose sale ended', [{ ticketTypeId: 'over', quantity: 1 }], 'ticket_type_unavailable', 'items[0].ticket_type_id', 422],
    ['more than the maximum per order', [{ ticketTypeId: 'group', quantity: 9 }], 'exceeds_max_per_order', 'items[0].quantity', 422],
    ['fewer than the minimum per order (422)', [{ ticketTypeId: 'group', quantity: 3 }], 'parameter_invalid', 'items[0].quantity', 422],
    ['merged lines over the maximum', [{ ticketTypeId: 'ga', quantity: 6 }, { ticketTypeId: 'ga', quantity: 5 }], 'exceeds_max_per_order', 'items[0].quantity', 422],
  ])('refuses %s', (_, lines, code, param, httpStatus) => {
    expect(failure(lines as RequestedLine[])).toEqual({ code, param, httpStatus });
  });

  it('names the first failing line by its position in the request', () => {
    expect(failure([{ ticketTypeId: 'ga', quantity: 1 }, { ticketTypeId: 'hidden', quantity: 1 }, { ticketTypeId: 'seated', quantity: 1 }])).toMatchObject({
      code: 'ticket_type_unavailable',
      param: 'items[1].ticket_type_id',
    });
  });

  it('checks the event before any line', () => {
    expect(failure([{ ticketTypeId: 'nope', quantity: 1 }], event({ status: 'draft' }))).toMatchObject({ code: 'event_not_on_sale' });
  });
});
