import type { ApiError } from '@partner-api/shared';
import { day, eventRow, NOW, ticketTypeRow } from './catalog.fixtures';
import { compGrant, planComp, type CompRequest } from './comp-rules';

const TYPES = [
  ticketTypeRow({ id: 'ga', pool_ids: ['p1'] }),
  ticketTypeRow({ id: 'flexi', pool_ids: ['p1', 'p2'] }),
  ticketTypeRow({ id: 'hidden-seated', pool_ids: ['p1'], hidden: true, seated: true, sale_ends_at: day(-1), max_per_order: 1 }),
  ticketTypeRow({ id: 'other-event', event_id: '2', pool_ids: ['p9'] }),
];

const failure = (request: CompRequest, event = eventRow()) => {
  try {
    planComp(event, TYPES, request, NOW);
    return undefined;
  } catch (error) {
    const { code, param, httpStatus } = error as ApiError;
    return { code, param, httpStatus };
  }
};

describe('planning a comp batch', () => {
  it('takes from the only pool of a single-pool type', () => {
    expect(planComp(eventRow(), TYPES, { ticketTypeId: 'ga' }, NOW).poolId).toBe('p1');
  });

  it('takes from the named pool of a multi-pool type', () => {
    expect(planComp(eventRow(), TYPES, { ticketTypeId: 'flexi', poolId: 'p2' }, NOW).poolId).toBe('p2');
  });

  it('when the type sells from several pools and none is named, then 400 parameter_missing on pool_id', () => {
    expect(failure({ ticketTypeId: 'flexi' })).toEqual({ code: 'parameter_missing', param: 'pool_id', httpStatus: 400 });
  });

  it('when the pool is not one the type sells from, then 400 parameter_invalid on pool_id', () => {
    expect(failure({ ticketTypeId: 'ga', poolId: 'p2' })).toEqual({ code: 'parameter_invalid', param: 'pool_id', httpStatus: 400 });
  });

  it('when the type is not the event\'s, then 404 resource_missing on ticket_type_id', () => {
    expect(failure({ ticketTypeId: 'other-event' })).toEqual({ code: 'resource_missing', param: 'ticket_type_id', httpStatus: 404 });
    expect(failure({ ticketTypeId: 'nope' })).toEqual({ code: 'resource_missing', param: 'ticket_type_id', httpStatus: 404 });
  });

  it('ignores the sales rules: hidden, seated, sale ended and per-order limits still take comps, and so does a draft event', () => {
    expect(failure({ ticketTypeId: 'hidden-seated' })).toBeUndefined();
    expect(failure({ ticketTypeId: 'ga' }, eventRow({ status: 'draft', on_sale_at: day(10) }))).toBeUndefined();
  });

  it('when the event is cancelled or over, then 422 event_not_on_sale', () => {
    expect(failure({ ticketTypeId: 'ga' }, eventRow({ status: 'cancelled' }))).toEqual({ code: 'event_not_on_sale', param: 'event_id', httpStatus: 422 });
    expect(failure({ ticketTypeId: 'ga' }, eventRow({ starts_at: day(-2), ends_at: day(-1) }))).toEqual({ code: 'event_not_on_sale', param: 'event_id', httpStatus: 422 });
  });
});

describe('how many guests of a batch get a ticket', () => {
  it('all of them when enough are left or the pool is uncapped', () => {
    expect(compGrant(5, 5)).toBe(5);
    expect(compGrant(5, 100)).toBe(5);
    expect(compGrant(50, null)).toBe(50);
  });

  it('as many as are left, when some are', () => {
    expect(compGrant(5, 3)).toBe(3);
    expect(compGrant(5, 1)).toBe(1);
  });

  it('when none are left, then the whole batch is refused with 422 exceeds_availability', () => {
    for (const available of [0, -2]) {
      try {
        compGrant(3, available);
        throw new Error('granted');
      } catch (error) {
        expect(error).toMatchObject({ code: 'exceeds_availability', param: 'attendees', httpStatus: 422 });
      }
    }
  });
});
