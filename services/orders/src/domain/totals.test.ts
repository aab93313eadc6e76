import { discountFor, totalsFor } from './totals';

describe('checkout totals', () => {
  const lines = [
    { totalCents: 17850n, unitBookingFeeCents: 450n, quantity: 3 },
    { totalCents: 5950n, unitBookingFeeCents: 350n, quantity: 1 },
  ];

  it('adds fee-inclusive lines and reports the fee part inside them', () => {
    expect(totalsFor(lines)).toEqual({ subtotal: 23800n, totalFees: 1700n, discount: 0n, total: 23800n });
  });

  it('takes a percentage off, rounding half up to the cent', () => {
    expect(discountFor(23800n, { kind: 'percent', value: 15n })).toBe(3570n);
    expect(discountFor(999n, { kind: 'percent', value: 50n })).toBe(500n); // 499.5 → 500
    expect(discountFor(333n, { kind: 'percent', value: 10n })).toBe(33n); // 33.3 → 33
    expect(totalsFor(lines, { kind: 'percent', value: 10n })).toEqual({ subtotal: 23800n, totalFees: 1700n, discount: 2380n, total: 21420n });
  });

  it('takes a fixed amount off, never more than the subtotal', () => {
    expect(discountFor(23800n, { kind: 'amount', value: 1000n })).toBe(1000n);
    expect(discountFor(500n, { kind: 'amount', value: 1000n })).toBe(500n);
    expect(discountFor(23800n, { kind: 'percent', value: 100n })).toBe(23800n);
  });
});
