/**
 * Turning a paid checkout session into an order. Every step is idempotent,
 * so the same call can run again after any failure or crash, from the
 * hosted checkout or from the recovery loop:
 *
 * 1. the hold becomes a sale in inventory (a lapsed hold is taken again
 *    when stock allows; when it does not, the payment is refunded);
 * 2. the tickets service issues one ticket per unit (idempotent by order id);
 * 3. one transaction stores the order, completes the session, counts the
 *    coupon use and writes `order.completed` to the outbox.
 */
import {
  ApiError,
  emitEvent,
  gen,
  inTransaction,
  type InventoryClient,
  type Logger,
  operatorContext,
  type Pool,
  type RequestContext,
  type TicketsClient,
} from '@partner-api/shared';
import type { CheckoutRepository, SessionRow } from '../storage/checkout-repository';
import type { AttemptRow, OrderRepository } from '../storage/order-repository';
import { orderView, type TicketInit } from './order-view';
import type { PaymentProvider } from './payment-provider';

// The orders modules that call inventory and tickets take their client types from here.
export type { InventoryClient, TicketsClient };

export type FulfilmentResult = { state: 'completed'; orderId: string } | { state: 'unavailable'; reason: string };

/** Stock answers that mean "these tickets cannot be sold now", as opposed to a transient failure. */
const UNSELLABLE = new Set(['exceeds_availability', 'event_not_on_sale', 'ticket_type_unavailable', 'resource_missing']);

export class OrderFulfilment {
  constructor(
    private readonly pool: Pool,
    private readonly sessions: CheckoutRepository,
    private readonly orders: OrderRepository,
    private readonly inventory: InventoryClient,
    private readonly tickets: TicketsClient,
    private readonly provider: PaymentProvider,
    private readonly settings: { holdSeconds: number },
    private readonly logger: Logger,
  ) {}

  async complete(session: SessionRow, attempt: AttemptRow, requestId: string): Promise<FulfilmentResult> {
    if (session.status === 'completed') return { state: 'completed', orderId: session.id };
    const ctx = operatorContext(Number(session.organisation_id), requestId);

    const unsellable = await this.secureStock(session, ctx);
    if (unsellable) {
      await this.refund(attempt);
      this.logger.warn({ sessionId: session.id, reason: unsellable }, 'paid session could not get its tickets; payment refunded');
      return { state: 'unavailable', reason: unsellable };
    }

    const issued = await this.tickets.issueTicketsForOrder(
      {
        orderId: session.id,
        eventId: BigInt(session.event_id),
        lines: session.items.map((item) => ({
          ticketTypeId: BigInt(item.ticket_type_id),
          poolId: BigInt(item.pool_id),
          ticketTypeName: item.name,
          quantity: item.quantity,
          unitPrice: item.unit_price,
        })),
        attendee: {
          firstName: session.customer?.first_name ?? undefined,
          lastName: session.customer?.last_name ?? undefined,
          email: session.customer?.email ?? undefined,
        },
      },
      ctx,
    );
    await this.storeOrder(session, attempt, issued.tickets);
    return { state: 'completed', orderId: session.id };
  }

  /** Sells the session's hold; undefined when sold, else why the tickets cannot be had. */
  private async secureStock(session: SessionRow, ctx: RequestContext): Promise<string | undefined> {
    try {
      await this.inventory.commitHold({ holdId: session.id }, ctx);
      return undefined;
    } catch (error) {
      if (!(error instanceof ApiError) || !UNSELLABLE.has(error.code)) throw error;
    }
    // The hold lapsed (or never reached inventory): take the same tickets again if they are there.
    const unavailable = await this.holdAgain(session, ctx);
    if (unavailable) return unavailable;
    await this.inventory.commitHold({ holdId: session.id }, ctx);
    return undefined;
  }

  /** Returns a session's hold to stock (a renewed hold whose payment failed). */
  releaseHold(request: { holdId: string }, ctx: RequestContext): Promise<unknown> {
    return this.inventory.releaseHold(request, ctx);
  }

  /** Holds a session's tickets again under its id; the reason when they cannot be had. */
  async holdAgain(session: SessionRow, ctx: RequestContext): Promise<string | undefined> {
    try {
      await this.inventory.holdStock(
        {
          holdId: session.id,
          eventIdOrSlug: session.event_id,
          lines: session.items.map((item) => ({ ticketTypeId: BigInt(item.ticket_type_id), poolId: BigInt(item.pool_id), quantity: item.quantity })),
          ttlSeconds: this.settings.holdSeconds,
        },
        ctx,
      );
      return undefined;
    } catch (error) {
      if (error instanceof ApiError && UNSELLABLE.has(error.code)) return error.code;
      throw error;
    }
  }

  private async refund(attempt: AttemptRow): Promise<void> {
    if (attempt.reference) {
      const outcome = await this.provider.refund({ reference: attempt.reference, idempotencyKey: `${attempt.id}-refund` });
      if (outcome.status === 'failed') throw new Error(`refunding a payment whose tickets were gone failed: ${outcome.message}`);
    }
    await this.sessions.markUnpaid(this.pool, attempt.session_id);
    await this.orders.settleAttempt(this.pool, attempt.id, { status: 'refunded' });
  }

  private async storeOrder(session: SessionRow, attempt: AttemptRow, tickets: TicketInit[]): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const current = await this.sessions.findSessionById(session.id, client, true);
      if (!current || current.status === 'completed') return;
      const created = await this.orders.insert(client, {
        id: current.id,
        organisation_id: current.organisation_id,
        event_id: current.event_id,
        customer: { email: null, first_name: null, last_name: null, phone: null, ...current.customer },
        items: current.items,
        subtotal_cents: current.subtotal_cents,
        total_fees_cents: current.total_fees_cents,
        discount_cents: current.discount_cents,
        total_cents: current.total_cents,
        payment_method: attempt.provider === 'free' ? 'free' : this.provider.paymentMethod,
        // Only an API session is a checkout session partners know of (D246).
        checkout_session_id: current.sales_channel === 'api' ? current.id : null,
        sales_channel: current.sales_channel,
        channel_origin: current.channel_origin,
        metadata: current.metadata,
      });
      await this.sessions.markCompleted(client, current.id);
      if (!created) return;
      if (current.coupon_id) await this.sessions.countCouponUse(client, current.coupon_id);
      const order = (await this.orders.findById(current.id, client))!;
      await emitEvent(client, { type: 'order.completed', organisationId: Number(order.organisation_id), schema: gen.orders.OrderSchema, view: orderView(order, tickets), partitionKey: `order:${order.id}` });
    });
  }
}
