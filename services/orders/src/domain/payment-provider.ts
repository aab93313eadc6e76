/**
 * The card processor, seen from orders. The hosted checkout charges through
 * this interface only; the simulated processor (local, staging, tests) and
 * the Stripe adapter both implement it.
 */

/** What the customer entered on the hosted checkout page. */
export type PaymentMethodInput =
  | { kind: 'card'; number: string; expMonth: number; expYear: number; cvc: string; name: string }
  /** A processor-side token, e.g. a Stripe PaymentMethod id from Stripe.js. */
  | { kind: 'token'; id: string };

export interface ChargeRequest {
  /** Our payment attempt id: a repeated charge with the same key charges once. */
  idempotencyKey: string;
  amountCents: bigint;
  currency: 'AUD';
  method: PaymentMethodInput;
  description: string;
  metadata: Record<string, string>;
}

export type ChargeOutcome =
  | { status: 'succeeded'; reference: string }
  | { status: 'declined'; code: string; message: string };

/** What the processor knows about an earlier charge (after a crash mid-charge). */
export type ChargeLookup = ChargeOutcome | { status: 'not_found' };

export interface PaymentProvider {
  /** The order's `payment_method` for payments through this provider. */
  readonly paymentMethod: 'stripe' | 'paypal' | 'other';
  /** Throws when the outcome is unknown (network, processor outage); a decline is an outcome. */
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  lookup(idempotencyKey: string): Promise<ChargeLookup>;
  /** Throws when the outcome is unknown; a refusal is an outcome. */
  refund(request: RefundRequest): Promise<RefundOutcome>;
}

export interface RefundRequest {
  /** The charge's reference (a PaymentIntent id for Stripe). */
  reference: string;
  /** Our refund id: a repeated refund with the same key refunds once. */
  idempotencyKey: string;
  /** Unset: whatever of the charge is not refunded yet. */
  amountCents?: bigint;
  reason?: string;
}

export type RefundOutcome = { status: 'succeeded'; reference: string } | { status: 'failed'; code: string; message: string };
