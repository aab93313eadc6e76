/**
 * Payments through Stripe (PaymentIntents, confirmed server-side with a
 * PaymentMethod id that Stripe.js created in the customer's browser; raw
 * card numbers never reach this adapter). The official SDK brings the
 * idempotency keys and network retries.
 */
import Stripe from 'stripe';
import type { ChargeLookup, ChargeOutcome, ChargeRequest, PaymentProvider, RefundOutcome, RefundRequest } from '../domain/payment-provider';

export interface StripeSettings {
  secretKey: string;
  /** Another API host, e.g. a local stand-in in tests (`http://127.0.0.1:12111`). */
  apiBase?: string;
  maxNetworkRetries?: number;
  timeoutMs?: number;
}

export class StripePaymentProvider implements PaymentProvider {
  readonly paymentMethod = 'stripe' as const;
  private readonly stripe: Stripe;

  constructor(settings: StripeSettings) {
    const base = settings.apiBase ? new URL(settings.apiBase) : undefined;
    this.stripe = new Stripe(settings.secretKey, {
      maxNetworkRetries: settings.maxNetworkRetries ?? 2,
      timeout: settings.timeoutMs ?? 20_000,
      ...(base && { host: base.hostname, port: base.port || undefined, protocol: base.protocol === 'http:' ? 'http' : 'https' }),
    });
  }

  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    if (request.method.kind !== 'token') {
      return { status: 'declined', code: 'invalid_payment_method', message: 'Card details must be collected by Stripe.js.' };
    }
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: Number(request.amountCents),
          currency: request.currency.toLowerCase(),
          payment_method: request.method.id,
          confirm: true,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          description: request.description,
          metadata: { ...request.metadata, attempt_id: request.idempotencyKey },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return outcomeOf(intent);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) {
        return { status: 'declined', code: error.decline_code ?? error.code ?? 'card_declined', message: error.message };
      }
      throw error;
    }
  }

  async lookup(idempotencyKey: string): Promise<ChargeLookup> {
    const found = await this.stripe.paymentIntents.search({ query: `metadata['attempt_id']:'${idempotencyKey}'`, limit: 1 });
    const intent = found.data[0];
    return intent ? outcomeOf(intent) : { status: 'not_found' };
  }

  /**
   * One Refund per idempotency key (Stripe answers a repeat with the first
   * refund). Stripe refusing the request (already refunded, more than is
   * left, a disputed charge) is a failed outcome; anything else throws.
   */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: request.reference,
          ...(request.amountCents !== undefined && { amount: Number(request.amountCents) }),
          metadata: { refund_id: request.idempotencyKey, ...(request.reason && { reason: request.reason.slice(0, 500) }) },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (refund.status === 'failed' || refund.status === 'canceled') {
        return { status: 'failed', code: refund.failure_reason ?? refund.status, message: `Stripe reports the refund ${refund.status}.` };
      }
      return { status: 'succeeded', reference: refund.id };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeCardError) {
        return { status: 'failed', code: error.code ?? 'refund_refused', message: error.message };
      }
      throw error;
    }
  }
}

function outcomeOf(intent: Stripe.PaymentIntent): ChargeOutcome {
  if (intent.status === 'succeeded') return { status: 'succeeded', reference: intent.id };
  const error = intent.last_payment_error;
  return {
    status: 'declined',
    code: error?.decline_code ?? error?.code ?? intent.status,
    message: error?.message ?? 'The payment needs a step this checkout does not support; try another card.',
  };
}
