/**
 * Paying a checkout session on the hosted checkout. The customer's payment
 * is recorded as an attempt before the processor is called (the attempt id
 * is the processor's idempotency key) and its outcome right after, so a
 * crash at any point leaves something the recovery loop can finish:
 * an unknown charge is looked up at the processor, a paid session without
 * its order is completed.
 *
 * A session whose hold lapsed can still be paid: its tickets are held again
 * first, and when they are gone the customer is told before any charge.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, inTransaction, isUuid, notFound, type Logger, operatorContext, type Pool } from '@partner-api/shared';
import type { CheckoutRepository, SessionRow } from '../storage/checkout-repository';
import type { AttemptRow, OrderRepository } from '../storage/order-repository';
import { type FulfilmentResult, type OrderFulfilment } from './fulfilment';
import type { PaymentMethodInput, PaymentProvider } from './payment-provider';

export interface PaymentForm {
  /** Undefined for a free order. */
  method?: PaymentMethodInput;
  customer: { email?: string; firstName?: string; lastName?: string };
}

export type PaymentResult =
  | { kind: 'completed'; orderId: string }
  | { kind: 'declined'; message: string }
  | { kind: 'unavailable'; message: string }
  /** A charge or the order is still being worked on; the page asks the customer to wait. */
  | { kind: 'processing' };

export interface PaymentTimings {
  /** A charge without a recorded outcome for this long is looked up at the processor. */
  chargeTimeoutMs: number;
  /** A paid session without its order for this long is completed by the recovery loop. */
  completionDelayMs: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SOLD_OUT_MESSAGE = 'Sorry, these tickets are no longer available. You have not been charged.';

export class CheckoutPayments {
  constructor(
    private readonly pool: Pool,
    private readonly sessions: CheckoutRepository,
    private readonly orders: OrderRepository,
    private readonly provider: PaymentProvider,
    private readonly fulfilment: OrderFulfilment,
    private readonly timings: PaymentTimings,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The session behind a hosted checkout address; ids are unguessable uuids. */
  async session(id: string): Promise<SessionRow> {
    const session = isUuid(id) ? await this.sessions.findSessionById(id) : undefined;
    if (!session) throw notFound('checkout session');
    return session;
  }

  isLapsed(session: SessionRow): boolean {
    return session.status === 'open' && session.paid_at === null && session.expires_at.getTime() <= this.clock().getTime();
  }

  async pay(sessionId: string, form: PaymentForm, requestId: string): Promise<PaymentResult> {
    const session = await this.session(sessionId);
    if (session.status === 'completed') return { kind: 'completed', orderId: session.id };
    const earlier = await this.orders.attemptsFor(session.id);
    const paid = earlier.find((attempt) => attempt.status === 'succeeded');
    if (paid) return this.finish(session, paid, requestId);
    if (earlier.some((attempt) => attempt.status === 'processing')) return { kind: 'processing' };

    const customer = this.customerFrom(session, form);
    const free = BigInt(session.total_cents) === 0n;
    if (!free && !form.method) throw new ApiError('parameter_missing', 'Enter your card details.', 'card_number');

    const renewed = this.isLapsed(session);
    if (renewed) {
      const unavailable = await this.fulfilment.holdAgain(session, operatorContext(Number(session.organisation_id), requestId));
      if (unavailable) return { kind: 'unavailable', message: SOLD_OUT_MESSAGE };
    }

    const attempt = await this.startAttempt(session, customer, free);
    if (!attempt) return { kind: 'processing' };
    if (free) return this.finish({ ...session, customer }, attempt, requestId);

    let outcome;
    try {
      outcome = await this.provider.charge({
        idempotencyKey: attempt.id,
        amountCents: BigInt(session.total_cents),
        currency: 'AUD',
        method: form.method!,
        description: `Checkout ${session.id}`,
        metadata: { checkout_session_id: session.id, organisation_id: session.organisation_id },
      });
    } catch (error) {
      // Unknown outcome: the attempt stays `processing` and the recovery loop asks the processor.
      this.logger.error({ err: error, sessionId: session.id, attemptId: attempt.id }, 'charge outcome unknown');
      return { kind: 'processing' };
    }
    if (outcome.status === 'declined') {
      await this.orders.settleAttempt(this.pool, attempt.id, { status: 'declined', declineCode: outcome.code, declineMessage: outcome.message });
      // A hold taken again only for this payment goes back; an unexpired one stays for another card.
      if (renewed) await this.releaseQuietly(session, requestId);
      return { kind: 'declined', message: outcome.message };
    }
    const settled = await this.recordSuccess(attempt, outcome.reference);
    return this.finish({ ...session, customer }, settled, requestId);
  }

  /** One pass of the recovery loop: resolves unknown charges and completes paid sessions. Returns how many it looked at. */
  async recover(limit = 50): Promise<number> {
    const now = this.clock().getTime();
    const stuck = await this.orders.unfinishedAttempts(new Date(now - this.timings.completionDelayMs), new Date(now - this.timings.chargeTimeoutMs), limit);
    for (const attempt of stuck) {
      const requestId = `recovery-${randomUUID()}`;
      try {
        let settled: AttemptRow | undefined = attempt;
        if (attempt.status === 'processing') settled = await this.resolveUnknownCharge(attempt);
        if (settled?.status === 'succeeded') {
          const session = await this.session(attempt.session_id);
          await this.fulfilment.complete(session, settled, requestId);
        }
      } catch (error) {
        this.logger.error({ err: error, attemptId: attempt.id }, 'recovering a payment failed; will retry');
      }
    }
    return stuck.length;
  }

  private async resolveUnknownCharge(attempt: AttemptRow): Promise<AttemptRow | undefined> {
    const found = await this.provider.lookup(attempt.id);
    if (found.status === 'succeeded') return this.recordSuccess(attempt, found.reference);
    if (found.status === 'declined') {
      await this.orders.settleAttempt(this.pool, attempt.id, { status: 'declined', declineCode: found.code, declineMessage: found.message });
    } else {
      await this.orders.settleAttempt(this.pool, attempt.id, { status: 'abandoned' });
    }
    return undefined;
  }

  private async recordSuccess(attempt: AttemptRow, reference: string): Promise<AttemptRow> {
    await inTransaction(this.pool, async (client) => {
      await this.orders.settleAttempt(client, attempt.id, { status: 'succeeded', reference });
      await this.sessions.markPaid(client, attempt.session_id);
    });
    return { ...attempt, status: 'succeeded', reference };
  }

  private async finish(session: SessionRow, attempt: AttemptRow, requestId: string): Promise<PaymentResult> {
    let result: FulfilmentResult;
    try {
      const current = (await this.sessions.findSessionById(session.id)) ?? session;
      result = await this.fulfilment.complete(current, attempt, requestId);
    } catch (error) {
      // Paid, and the order will be completed by the recovery loop.
      this.logger.error({ err: error, sessionId: session.id }, 'completing a paid session failed; recovery will retry');
      return { kind: 'processing' };
    }
    return result.state === 'completed'
      ? { kind: 'completed', orderId: result.orderId }
      : { kind: 'unavailable', message: 'Sorry, these tickets sold out while your payment went through. Your payment has been refunded.' };
  }

  /** The attempt, stored before the processor hears of it; undefined when another attempt is under way. */
  private async startAttempt(session: SessionRow, customer: Record<string, string | null>, free: boolean): Promise<AttemptRow | undefined> {
    return inTransaction(this.pool, async (client) => {
      await this.sessions.findSessionById(session.id, client, true);
      const attempts = await this.orders.attemptsFor(session.id, client);
      if (attempts.some((attempt) => attempt.status === 'processing' || attempt.status === 'succeeded')) return undefined;
      await this.sessions.setCustomer(client, session.id, customer);
      const attempt = {
        id: randomUUID(),
        session_id: session.id,
        organisation_id: session.organisation_id,
        provider: free ? 'free' : this.provider.paymentMethod,
        status: free ? ('succeeded' as const) : ('processing' as const),
        amount_cents: session.total_cents,
      };
      await this.orders.insertAttempt(client, attempt);
      if (free) await this.sessions.markPaid(client, session.id);
      const now = this.clock();
      return { ...attempt, reference: null, decline_code: null, decline_message: null, created_at: now, updated_at: now };
    });
  }

  private customerFrom(session: SessionRow, form: PaymentForm): Record<string, string | null> {
    const pick = (typed: string | undefined, prefilled: string | null | undefined) => (typed?.trim() ? typed.trim() : (prefilled ?? null));
    const customer = {
      email: pick(form.customer.email, session.customer?.email),
      first_name: pick(form.customer.firstName, session.customer?.first_name),
      last_name: pick(form.customer.lastName, session.customer?.last_name),
      phone: session.customer?.phone ?? null,
    };
    if (!customer.email) throw new ApiError('parameter_missing', 'Enter your email address: your tickets are sent there.', 'email');
    if (!EMAIL.test(customer.email) || customer.email.length > 254) throw new ApiError('parameter_invalid', 'Enter a valid email address.', 'email');
    for (const [field, value] of [['first_name', customer.first_name], ['last_name', customer.last_name]] as const) {
      if (value !== null && value.length > 100) throw new ApiError('parameter_invalid', 'Names are at most 100 characters.', field);
    }
    return customer;
  }

  private async releaseQuietly(session: SessionRow, requestId: string): Promise<void> {
    await this.fulfilment
      .releaseHold({ holdId: session.id }, operatorContext(Number(session.organisation_id), requestId))
      .catch((error: unknown) => this.logger.warn({ err: error, sessionId: session.id }, 'could not release a renewed hold'));
  }
}
