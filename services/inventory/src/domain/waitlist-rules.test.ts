import type { ApiError } from '@partner-api/shared';
import { day, eventRow, NOW, poolRow, ticketTypeRow } from './catalog.fixtures';
import { passHasWork, planJoin, planOffers, type JoinRequest } from './waitlist-rules';

const TYPES = [
  ticketTypeRow({ id: 'ga', pool_ids: ['p1'], max_per_order: 6 }),
  ticketTypeRow({ id: 'group', pool_ids: ['p1'], min_per_order: 4, max_per_order: 8 }),
  ticketTypeRow({ id: 'hidden', pool_ids: ['p1'], hidden: true }),
  ticketTypeRow({ id: 'later', pool_ids: ['p1'], sale_starts_at: day(1) }),
  ticketTypeRow({ id: 'free-for-all', pool_ids: ['p2'] }),
];
const POOLS = [poolRow({ id: 'p1', capacity: 100 }), poolRow({ id: 'p2', capacity: null })];
const soldOut = new Map<string, number | null>([['p1', 0], ['p2', null]]);

const join = (request: Partial<JoinRequest>, available = soldOut, event = eventRow()) =>
  planJoin(event, TYPES, POOLS, { ticketTypeId: 'ga', email: 'ada@example.com', quantity: 2, ...request }, available, NOW);

const failure = (...args: Parameters<typeof join>) => {
  try {
    join(...args);
    return undefined;
  } catch (error) {
    const { code, param } = error as ApiError;
    return { code, param };
  }
};

describe('joining a waiting list', () => {
  it('when the pool is sold out, then the entry is for the type’s pool with the trimmed email', () => {
    expect(join({ email: '  Ada@Example.com ' })).toEqual({ poolId: 'p1', email: 'Ada@Example.com', quantity: 2 });
  });

  it('when fewer are left than asked for, then joining is allowed', () => {
    expect(join({ quantity: 3 }, new Map([['p1', 2]])).quantity).toBe(3);
  });

  it('when enough are on sale, then the customer is told to buy instead', () => {
    expect(failure({ quantity: 2 }, new Map([['p1', 2]]))).toEqual({ code: 'parameter_invalid', param: 'quantity' });
  });

  it.each([
    [{ email: 'not-an-address' }, 'parameter_invalid', 'email'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 'parameter_invalid', 'email'],
    [{ quantity: 0 }, 'parameter_invalid', 'quantity'],
    [{ quantity: 1.5 }, 'parameter_invalid', 'quantity'],
    [{ quantity: 7 }, 'exceeds_max_per_order', 'quantity'],
    [{ ticketTypeId: 'group', quantity: 3 }, 'parameter_invalid', 'quantity'],
    [{ ticketTypeId: 'hidden' }, 'resource_missing', 'ticket_type_id'],
    [{ ticketTypeId: 'nope' }, 'resource_missing', 'ticket_type_id'],
    [{ ticketTypeId: 'later' }, 'ticket_type_unavailable', 'ticket_type_id'],
    [{ ticketTypeId: 'free-for-all' }, 'parameter_invalid', 'ticket_type_id'],
  ])('when %j, then %s on %s', (request, code, param) => {
    expect(failure(request)).toEqual({ code, param });
  });

  it.each([
    ['cancelled', eventRow({ status: 'cancelled' })],
    ['ended', eventRow({ starts_at: day(-2), ends_at: day(-1) })],
    ['a draft', eventRow({ status: 'draft' })],
  ])('when the event is %s, then it has no list', (_, event) => {
    expect(failure({}, soldOut, event)).toEqual({ code: 'event_not_on_sale', param: 'event_id' });
  });
});

describe('offering reserved tickets', () => {
  const waiting = [
    { id: '1', quantity: 2 },
    { id: '2', quantity: 4 },
    { id: '3', quantity: 1 },
  ];

  it('when enough is free, then every entry gets what it asked for, in join order', () => {
    expect(planOffers(10, waiting)).toEqual([
      { entryId: '1', quantity: 2 },
      { entryId: '2', quantity: 4 },
      { entryId: '3', quantity: 1 },
    ]);
  });

  it('when too little is free, then the first entry left short takes the rest and later ones wait', () => {
    expect(planOffers(3, waiting)).toEqual([
      { entryId: '1', quantity: 2 },
      { entryId: '2', quantity: 1 },
    ]);
  });

  it('when nothing (or less than nothing) is free, then nobody is offered', () => {
    expect(planOffers(0, waiting)).toEqual([]);
    expect(planOffers(-2, waiting)).toEqual([]);
  });
});

describe('whether an allocator pass has work', () => {
  const quiet = { waiting_demand: 3, untaken: 0, offers_ended: false };
  const inStep = { reserved: 0, demand: 3 };

  it('when someone waits, nothing came back and Redis agrees, then the pool is skipped', () => {
    expect(passHasWork(quiet, inStep)).toBe(false);
  });

  it('when tickets are reserved beyond the untaken offers, then there is something to offer or put back on sale', () => {
    expect(passHasWork(quiet, { ...inStep, reserved: 1 })).toBe(true);
    expect(passHasWork({ ...quiet, waiting_demand: 0 }, { reserved: 2, demand: 0 })).toBe(true);
  });

  it('when an offer is untaken or its hold has ended, then the pass takes or settles it', () => {
    expect(passHasWork({ ...quiet, untaken: 1 }, inStep)).toBe(true);
    expect(passHasWork({ ...quiet, offers_ended: true }, inStep)).toBe(true);
  });

  it('when Redis has another demand, or none (a loss), then the pass sets it from PostgreSQL', () => {
    expect(passHasWork(quiet, { ...inStep, demand: 5 })).toBe(true);
    expect(passHasWork(quiet, { ...inStep, demand: null })).toBe(true);
    expect(passHasWork({ ...quiet, waiting_demand: 0 }, { reserved: 0, demand: null })).toBe(false);
  });
});
