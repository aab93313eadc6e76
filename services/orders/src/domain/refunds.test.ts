import { defaultRefundCents, refundedStatus } from './refunds';

describe('defaultRefundCents', () => {
  const order = { subtotal_cents: '9000', total_cents: '9000' };

  it("is the tickets' prices when nothing was discounted", () => {
    expect(defaultRefundCents(order, [3000n], 0n, false)).toBe(3000n);
  });

  it('shares a discount out over the tickets, rounding down, and the last refund takes the rest', () => {
    const discounted = { subtotal_cents: '9000', total_cents: '8000' };
    expect(defaultRefundCents(discounted, [3000n], 0n, false)).toBe(2666n);
    expect(defaultRefundCents(discounted, [3000n], 2666n, false)).toBe(2666n);
    expect(defaultRefundCents(discounted, [3000n], 5332n, true)).toBe(2668n);
  });

  it('never returns more than is left, nor anything for a free order', () => {
    expect(defaultRefundCents(order, [6000n], 5000n, false)).toBe(4000n);
    expect(defaultRefundCents(order, [3000n], 9000n, true)).toBe(0n);
    expect(defaultRefundCents({ subtotal_cents: '0', total_cents: '0' }, [0n], 0n, false)).toBe(0n);
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
