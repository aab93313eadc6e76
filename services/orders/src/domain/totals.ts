/**
 * Checkout totals in integer cents: `subtotal` is the sum of the
 * fee-inclusive line totals, `total_fees` the booking-fee part inside it,
 * `discount` what a coupon takes off, and `total` = subtotal − discount.
 */
export interface CouponTerms {
  kind: 'percent' | 'amount';
  /** Whole percent, or cents. */
  value: bigint;
}

export interface Totals {
  subtotal: bigint;
  totalFees: bigint;
  discount: bigint;
  total: bigint;
}

/** Percentages round half up to the cent; an amount never takes more than the subtotal. */
export function discountFor(subtotal: bigint, coupon: CouponTerms | undefined): bigint {
  if (!coupon) return 0n;
  const discount = coupon.kind === 'percent' ? (subtotal * coupon.value + 50n) / 100n : coupon.value;
  return discount > subtotal ? subtotal : discount;
}

export function totalsFor(lines: Array<{ totalCents: bigint; unitBookingFeeCents: bigint; quantity: number }>, coupon?: CouponTerms): Totals {
  const subtotal = lines.reduce((sum, line) => sum + line.totalCents, 0n);
  const totalFees = lines.reduce((sum, line) => sum + line.unitBookingFeeCents * BigInt(line.quantity), 0n);
  const discount = discountFor(subtotal, coupon);
  return { subtotal, totalFees, discount, total: subtotal - discount };
}
