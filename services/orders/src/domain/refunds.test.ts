import { defaultRefundCents, refundedStatus, ticketShares } from './refunds';

const tickets = (...prices: bigint[]) => prices.map((priceCents, index) => ({ id: String(index + 1), priceCents }));

describe('ticketShares', () => {
  it("is the tickets' prices when nothing was discounted", () => {
    expect([...ticketShares({ subtotal_cents: '9000', total_cents: '9000' }, tickets(3000n, 3000n, 3000n)).values()]).toEqual([3000n, 3000n, 3000n]);
  });

  it('shares a discount out, the cents rounding leaves going to the largest remainders, lower ids first, adding up to the total', () => {
    const discounted = ticketShares({ subtotal_cents: '9000', total_cents: '8000' }, tickets(3000n, 3000n, 3000n));
    expect([...discounted.values()]).toEqual([2667n, 2667n, 2666n]);
    const uneven = ticketShares({ subtotal_cents: '6000', total_cents: '5999' }, tickets(1000n, 2000n, 3000n));
    expect([...uneven.values()]).toEqual([1000n, 2000n, 2999n]);
    expect([...uneven.values()].reduce((sum, share) => sum + share, 0n)).toBe(5999n);
  });

  it('is nothing for a free order', () => {
    expect([...ticketShares({ subtotal_cents: '0', total_cents: '0' }, tickets(0n, 0n)).values()]).toEqual([0n, 0n]);
  });
});

describe('defaultRefundCents', () => {
  const shares = ticketShares({ subtotal_cents: '6000', total_cents: '6000' }, tickets(3000n, 3000n));

  it("is the chosen tickets' shares", () => {
    expect(defaultRefundCents(shares, ['1'], 0n, 6000n)).toBe(3000n);
    expect(defaultRefundCents(shares, ['1', '2'], 0n, 6000n)).toBe(6000n);
  });

  it("is the ticket's share after another ticket was refunded with a smaller amount: that ticket's rest is not added", () => {
    expect(defaultRefundCents(shares, ['2'], 1250n, 6000n)).toBe(3000n);
  });

  it('never returns more than is left', () => {
    expect(defaultRefundCents(shares, ['2'], 4000n, 6000n)).toBe(2000n);
    expect(defaultRefundCents(shares, ['2'], 6000n, 6000n)).toBe(0n);
  });
});

describe('refundedStatus', () => {
  it('is refunded once every ticket is refunded or void, partially_refunded while one is valid or checked in', () => {
    const tickets = [
      { id: '1', status: 'refunded' },
      { id: '2', status: 'void' },
      { id: '3', status: 'valid' },
    ];
    expect(refundedStatus(tickets, new Set(['1']))).toBe('partially_refunded');
    expect(refundedStatus(tickets, new Set(['1', '3']))).toBe('refunded');
    expect(refundedStatus([{ id: '4', status: 'checked_in' }, { id: '5', status: 'refunded' }], new Set(['5']))).toBe('partially_refunded');
  });
});
