/**
 * A stand-in card processor for local runs, staging and tests, following
 * Stripe's published test cards: any Luhn-valid number with a future expiry
 * succeeds, except 4000 0000 0000 0002 (declined), 4000 0000 0000 9995
 * (insufficient funds) and 4000 0000 0000 0069 (expired card). It keeps its
 * ledger in memory, like a remote processor would keep it out of our reach.
 */
import { randomUUID } from 'node:crypto';
import type { ChargeLookup, ChargeOutcome, ChargeRequest, PaymentProvider, RefundOutcome, RefundRequest } from '../domain/payment-provider';

const DECLINES: Record<string, { code: string; message: string }> = {
  '4000000000000002': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000009995': { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000000069': { code: 'expired_card', message: 'Your card has expired.' },
};

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export class SimulatedCardProcessor implements PaymentProvider {
  /** It stands in for Stripe, whose test cards it follows: its orders are paid by `stripe`, as in production (D402). */
  readonly paymentMethod = 'stripe' as const;
  private readonly ledger = new Map<string, ChargeOutcome>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  charge(request: ChargeRequest): Promise<ChargeOutcome> {
    const known = this.ledger.get(request.idempotencyKey);
    if (known) return Promise.resolve(known);
    const outcome = this.decide(request);
    this.ledger.set(request.idempotencyKey, outcome);
    return Promise.resolve(outcome);
  }

  lookup(idempotencyKey: string): Promise<ChargeLookup> {
    return Promise.resolve(this.ledger.get(idempotencyKey) ?? { status: 'not_found' });
  }

  /** Refunds by idempotency key, like Stripe: a repeated key answers the first refund and moves no money. */
  readonly refunds = new Map<string, { reference: string; charge: string; amountCents: bigint | undefined }>();

  refund(request: RefundRequest): Promise<RefundOutcome> {
    let known = this.refunds.get(request.idempotencyKey);
    if (!known) {
      known = { reference: `sim_re_${randomUUID().replace(/-/g, '')}`, charge: request.reference, amountCents: request.amountCents };
      this.refunds.set(request.idempotencyKey, known);
    }
    return Promise.resolve({ status: 'succeeded', reference: known.reference });
  }

  private decide(request: ChargeRequest): ChargeOutcome {
    const method = request.method;
    if (method.kind !== 'card') return { status: 'declined', code: 'invalid_payment_method', message: 'This processor takes card details only.' };
    const digits = method.number.replace(/[\s-]/g, '');
    if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
      return { status: 'declined', code: 'incorrect_number', message: 'Your card number is incorrect.' };
    }
    const now = this.clock();
    const expiresAfter = new Date(Date.UTC(method.expYear, method.expMonth, 1));
    if (method.expMonth < 1 || method.expMonth > 12 || expiresAfter <= now) {
      return { status: 'declined', code: 'expired_card', message: 'Your card has expired.' };
    }
    if (!/^\d{3,4}$/.test(method.cvc)) return { status: 'declined', code: 'incorrect_cvc', message: "Your card's security code is incorrect." };
    const decline = DECLINES[digits];
    if (decline) return { status: 'declined', ...decline };
    return { status: 'succeeded', reference: `sim_ch_${randomUUID().replace(/-/g, '')}` };
  }
}
