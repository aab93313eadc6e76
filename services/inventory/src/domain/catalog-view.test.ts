import type { PoolRow } from '../storage/catalog-repository';
import { day, eventRow, NOW, poolRow, ticketTypeRow } from './catalog.fixtures';
import { eventStatus, eventView, ticketTypeStatus, type Availability } from './catalog-view';

/** What the stock store would say: capacity less sold. */
const left = (...pools: PoolRow[]): Availability =>
  new Map(pools.map((p) => [p.id, p.capacity === null ? null : p.capacity - p.sold]));

const event = eventRow;
const type = ticketTypeRow;
const pool = poolRow;
const SETTINGS = { publicSiteUrl: 'https://tickets.example.com' };

describe('event status', () => {
  it('is ended once the end time (or the start, without one) has passed', () => {
    expect(eventStatus(event({ ends_at: day(-1), starts_at: day(-1.1) }), NOW)).toBe('ended');
    expect(eventStatus(event({ ends_at: null, starts_at: day(-0.5) }), NOW)).toBe('ended');
    expect(eventStatus(event(), NOW)).toBe('published');
  });

  it('stays cancelled after the end time', () => {
    expect(eventStatus(event({ status: 'cancelled', ends_at: day(-1), starts_at: day(-2) }), NOW)).toBe('cancelled');
  });
});

describe('ticket type status', () => {
  it.each([
    ['hidden', type({ hidden: true }), 10],
    ['not_yet_on_sale', type({ sale_starts_at: day(1) }), 10],
    ['sale_ended', type({ sale_ends_at: day(-1) }), 10],
    ['sold_out', type(), 0],
    ['on_sale', type(), 10],
  ] as const)('is %s', (expected, ticketType, available) => {
    expect(ticketTypeStatus(ticketType, event(), available, NOW)).toBe(expected);
  });

  it('waits for the event on-sale time when the type has no window of its own', () => {
    expect(ticketTypeStatus(type(), event({ on_sale_at: day(2) }), 10, NOW)).toBe('not_yet_on_sale');
  });
});

describe('event view', () => {
  it('derives prices from purchasable types and remaining tickets from pools', () => {
    const pools = [pool({ capacity: 100, sold: 40 }), pool({ id: '2', capacity: 50, sold: 50 })];
    const view = eventView(
      event(),
      undefined,
      pools,
      [type({ price_cents: '8950' }), type({ id: '2', price_cents: '4500' }), type({ id: '3', price_cents: '100', hidden: true })],
      left(...pools),
      SETTINGS,
      NOW,
    );
    expect(view.ticketing).toEqual({ currency: 'AUD', minPrice: '45.00', maxPrice: '89.50', ticketsRemaining: 60n });
    expect(view.soldOut).toBe(false);
    expect(view.url).toBe('https://tickets.example.com/e/show');
    expect(view.startsAt).toBe('2026-12-02T00:00:00Z');
  });

  it('reports remaining as null when any pool is uncapped', () => {
    const pools = [pool(), pool({ id: '2', capacity: null })];
    const view = eventView(event(), undefined, pools, [type()], left(...pools), SETTINGS, NOW);
    expect(view.ticketing?.ticketsRemaining).toBeUndefined();
  });

  it('is sold out when every pool is, or when marked so', () => {
    const soldOut = pool({ sold: 100 });
    expect(eventView(event(), undefined, [soldOut], [type()], left(soldOut), SETTINGS, NOW).soldOut).toBe(true);
    expect(eventView(event({ marked_sold_out: true }), undefined, [pool()], [type()], left(pool()), SETTINGS, NOW).soldOut).toBe(true);
  });
});
