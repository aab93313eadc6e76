/**
 * Refunding an order (a platform operation: partnerctl, never the partner
 * API). The refund is recorded first, claiming its tickets under the
 * order's row lock, so two refunds of one ticket can never both go ahead;
 * its id, fixed by the caller, is the processor's idempotency key. Then,
 * each step safe to repeat:
 *
 * 1. the processor returns the money (a repeat with the same key refunds once);
 * 2. the tickets service marks the tickets refunded;
 * 3. inventory puts them back on sale (unless restock is off), once per refund id;
 * 4. one transaction completes the refund, adds to `refunded_amount`, sets the
 *    order's status and writes `order.refunded` with the refunded ticket ids.
 *
 * A crash or an unanswered call anywhere leaves the refund pending or
 * processed, and the recovery loop runs the same steps again (D223).
 */
import { randomUUID } from 'node:crypto';
import type { MessageShape } from '@bufbuild/protobuf';
import {
  ApiError,
  emitEvent,
  formatCents,
  gen,
  inTransaction,
  isDryRun,
  isUuid,
  notFound,
  operatorContext,
  parseCents,
  type Logger,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { OrderRepository, OrderRow } from '../storage/order-repository';
import type { NewRefund, RefundRepository, RefundRow } from '../storage/refund-repository';
import { type InventoryClient, type TicketsClient } from './fulfilment';
import { orderView, type OrderInit, type TicketInit } from './order-view';
import type { Orders } from './orders';
import type { PaymentProvider } from './payment-provider';

type RefundOrderRequest = MessageShape<typeof gen.orders.RefundOrderRequestSchema>;

const MAX_REASON = 500;
const MAX_TICKETS = 2000;

interface RefundInput {
  refundId: string;
  /** Undefined: every valid ticket of the order. */
  ticketIds?: string[];
  amountCents?: bigint;
  reason: string | null;
  restock: boolean;
  restockGiven: boolean;
}

export interface RefundSettings {
  /** A refund unfinished for this long is taken up by the recovery loop. */
  recoveryDelayMs: number;
}

/**
 * Each ticket's fixed share of what the order paid (D222, D390): its price
 * scaled by total ÷ subtotal (a coupon's discount shared out), rounded down
 * to the cent, and the cents that rounding leaves go one each to the
 * tickets with the largest remainders (the lower id first on a tie). The
 * shares add up to the total, so refunds by default return it to the cent
 * in whatever order and groups the tickets are refunded.
 */
export function ticketShares(order: Pick<OrderRow, 'subtotal_cents' | 'total_cents'>, tickets: Array<{ id: string; priceCents: bigint }>): Map<string, bigint> {
  const total = BigInt(order.total_cents);
  const subtotal = BigInt(order.subtotal_cents);
  if (subtotal === 0n) return new Map(tickets.map((ticket) => [ticket.id, 0n]));
  const exact = tickets.map((ticket) => ({ id: ticket.id, share: (ticket.priceCents * total) / subtotal, remainder: (ticket.priceCents * total) % subtotal }));
  let cents = total - exact.reduce((sum, ticket) => sum + ticket.share, 0n);
  const byRemainder = [...exact].sort((a, b) => (a.remainder !== b.remainder ? (b.remainder > a.remainder ? 1 : -1) : BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  for (const ticket of byRemainder) {
    if (cents <= 0n) break;
    ticket.share += 1n;
    cents -= 1n;
  }
  return new Map(exact.map((ticket) => [ticket.id, ticket.share]));
}

/**
 * The money a refund of `chosen` returns by default: the sum of their
 * shares, never more than is left (total − `committed`). A ticket refunded
 * earlier with an amount of its own, or voided, keeps the rest of its
 * share with the organiser: no later default refund picks it up (D390).
 */
export function defaultRefundCents(shares: Map<string, bigint>, chosen: string[], committed: bigint, total: bigint): bigint {
  const share = chosen.reduce((sum, id) => sum + (shares.get(id) ?? 0n), 0n);
  const left = total - committed;
  if (left <= 0n) return 0n;
  return share < left ? share : left;
}

/** `refunded` once no ticket of the order is left valid or checked in (void ones aside); else `partially_refunded` (D221). */
export function refundedStatus(tickets: Array<{ id: string; status: string }>, refunded: Set<string>): 'refunded' | 'partially_refunded' {
  return tickets.every((ticket) => ticket.status === 'void' || refunded.has(ticket.id)) ? 'refunded' : 'partially_refunded';
}

export class Refunds {
  constructor(
    private readonly pool: Pool,
    private readonly orders: OrderRepository,
    private readonly refunds: RefundRepository,
    private readonly reader: Orders,
    private readonly tickets: TicketsClient,
    private readonly inventory: InventoryClient,
    private readonly provider: PaymentProvider,
    private readonly settings: RefundSettings,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async refund(ctx: RequestContext, request: RefundOrderRequest): Promise<OrderInit> {
    const input = parseInput(request);
    const order = isUuid(request.id) ? await this.orders.find(ctx.organisationId, request.id) : undefined;
    if (!order) throw notFound('order', 'id');

    let refund = await this.refunds.find(input.refundId);
    if (!refund) {
      const tickets = (await this.tickets.listTicketsForOrders({ orderIds: [order.id] }, ctx)).tickets;
      refund = await this.claim(ctx, order.id, tickets, input);
      // A test key validates and changes nothing.
      if (!refund) return this.reader.get(ctx, order.id);
    }
    assertSameRefund(refund, order, input);
    await this.finish(refund, ctx.requestId);
    return this.reader.get(ctx, order.id);
  }

  /** One pass of the recovery loop: finishes refunds a crash or an outage left behind. Returns how many it looked at. */
  async recover(limit = 50): Promise<number> {
    const stuck = await this.refunds.unfinished(new Date(this.clock().getTime() - this.settings.recoveryDelayMs), limit);
    for (const refund of stuck) {
      try {
        await this.finish(refund, `refund-recovery-${randomUUID()}`);
      } catch (error) {
        this.logger.error({ err: error, refundId: refund.id }, 'recovering a refund failed; will retry');
      }
    }
    return stuck.length;
  }

  /**
   * Records the refund and claims its tickets under the order's lock, after
   * checking them against the order and the refunds before it. Undefined
   * for a test key (nothing written).
   */
  private async claim(ctx: RequestContext, orderId: string, tickets: TicketInit[], input: RefundInput): Promise<RefundRow | undefined> {
    const byId = new Map(tickets.map((ticket) => [String(ticket.id), ticket]));
    for (const id of input.ticketIds ?? []) {
      const ticket = byId.get(id);
      if (!ticket) throw new ApiError('parameter_invalid', `Ticket ${id} is not a ticket of this order.`, 'ticket_ids');
      if (ticket.status === 'checked_in') throw new ApiError('parameter_invalid', `Ticket ${id} was checked in; it cannot be refunded.`, 'ticket_ids');
      if (ticket.status !== 'valid') throw new ApiError('parameter_invalid', `Ticket ${id} is ${ticket.status}; it cannot be refunded.`, 'ticket_ids');
    }
    const chosen = input.ticketIds ?? tickets.filter((ticket) => ticket.status === 'valid').map((ticket) => String(ticket.id));
    if (chosen.length === 0) throw new ApiError('parameter_invalid', 'This order has no valid tickets left to refund.', 'ticket_ids');
    const reference = await this.chargeOf(orderId);

    try {
      return await inTransaction(this.pool, async (client) => {
        const order = await this.orders.lock(client, ctx.organisationId, orderId);
        if (!order) throw notFound('order', 'id');
        // The same refund id may have been recorded while this call waited for the lock.
        const raced = await this.refunds.find(input.refundId, client);
        if (raced) return raced;
        const taken = await this.refunds.claimed(client, chosen);
        if (taken.length > 0) throw new ApiError('parameter_invalid', `Ticket ${taken.join(', ')} is already refunded or being refunded.`, 'ticket_ids');
        const committed = await this.refunds.committedCents(client, orderId);
        const left = BigInt(order.total_cents) - committed;
        const shares = ticketShares(
          order,
          tickets.map((ticket) => ({ id: String(ticket.id), priceCents: BigInt(parseCents(ticket.price ?? '0.00')) })),
        );
        const amount = input.amountCents ?? defaultRefundCents(shares, chosen, committed, BigInt(order.total_cents));
        if (amount > left) throw new ApiError('parameter_invalid', `At most ${formatCents(left)} of this order is left to refund.`, 'amount');
        if (amount > 0n && !reference) throw new ApiError('parameter_invalid', 'This order was not paid through the card processor: it can only be refunded with amount 0.00.', 'amount');
        if (isDryRun(ctx)) return undefined;
        const lines = new Map<string, number>();
        for (const id of chosen) {
          const pool = String(byId.get(id)!.poolId);
          lines.set(pool, (lines.get(pool) ?? 0) + 1);
        }
        const refund: NewRefund = {
          id: input.refundId,
          order_id: orderId,
          organisation_id: String(ctx.organisationId),
          ticket_ids: chosen,
          lines: [...lines].map(([pool_id, quantity]) => ({ pool_id, quantity })),
          amount_cents: amount.toString(),
          reason: input.reason,
          restock: input.restock,
        };
        return this.refunds.insert(client, refund);
      });
    } catch (error) {
      // The same refund id, recorded at once for another order (whose lock this call did not wait for).
      if ((error as { code?: string }).code === '23505') {
        const existing = await this.refunds.find(input.refundId);
        if (existing) return existing;
      }
      throw error;
    }
  }

  /** Runs whatever steps of the refund are left; every step is safe to repeat. */
  private async finish(refund: RefundRow, requestId: string): Promise<void> {
    if (refund.status === 'completed') return;
    if (refund.status === 'failed') throw refusal(refund.failure_message);
    const ctx = operatorContext(Number(refund.organisation_id), requestId);
    const order = (await this.orders.findById(refund.order_id))!;
    try {
      if (refund.status === 'pending') await this.returnMoney(refund, order);
      await this.tickets.refundTickets({ orderId: order.id, ticketIds: refund.ticket_ids.map(BigInt) }, ctx);
      if (refund.restock && refund.lines.length > 0) {
        await this.inventory.restockRefund(
          { refundId: refund.id, eventId: BigInt(order.event_id), lines: refund.lines.map((line) => ({ poolId: BigInt(line.pool_id), quantity: line.quantity })) },
          ctx,
        );
      }
      const tickets = (await this.tickets.listTicketsForOrders({ orderIds: [order.id] }, ctx)).tickets;
      await this.complete(refund, tickets);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'parameter_invalid' && error.param === 'refund_id') throw error;
      this.logger.error({ err: error, refundId: refund.id }, 'refund not finished; recovery will finish it');
      throw new ApiError('internal_error', `Refund ${refund.id} is recorded but not finished; it will be finished automatically, or retry with the same refund id.`);
    }
  }

  /** Step 1. A refusal ends the refund (its tickets are free again); an unknown outcome throws and leaves it pending. */
  private async returnMoney(refund: RefundRow, order: OrderRow): Promise<void> {
    const amount = BigInt(refund.amount_cents);
    if (amount === 0n) {
      await this.refunds.markProcessed(refund.id, null);
      return;
    }
    const reference = await this.chargeOf(order.id);
    if (!reference) throw new Error(`order ${order.id} has no charge to refund`);
    const outcome = await this.provider.refund({ reference, idempotencyKey: refund.id, amountCents: amount, reason: refund.reason ?? undefined });
    if (outcome.status === 'failed') {
      const message = `${outcome.message} (${outcome.code})`;
      await inTransaction(this.pool, (client) => this.refunds.markFailed(client, refund.id, message));
      this.logger.warn({ refundId: refund.id, code: outcome.code }, 'the processor refused a refund');
      throw refusal(message);
    }
    await this.refunds.markProcessed(refund.id, outcome.reference);
  }

  /** Step 4, once: the refund completes, the order takes its amount and status, and order.refunded is written. */
  private async complete(refund: RefundRow, tickets: TicketInit[]): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await this.orders.lock(client, Number(refund.organisation_id), refund.order_id);
      if (!(await this.refunds.markCompleted(client, refund.id))) return;
      const refunded = new Set(await this.refunds.refundedTickets(client, refund.order_id));
      const status = refundedStatus(tickets.map((ticket) => ({ id: String(ticket.id), status: ticket.status! })), refunded);
      await this.orders.applyRefund(client, refund.order_id, refund.amount_cents, status);
      const order = (await this.orders.findById(refund.order_id, client))!;
      await emitEvent(client, {
        type: 'order.refunded',
        organisationId: Number(order.organisation_id),
        schema: gen.orders.OrderSchema,
        view: orderView(order, tickets),
        partitionKey: `order:${order.id}`,
        extra: { refunded_ticket_ids: refund.ticket_ids.map(Number) },
      });
    });
  }

  private chargeOf(orderId: string): Promise<string | undefined> {
    // API orders share their checkout session's id; the session's successful attempt holds the charge.
    return this.refunds.chargeReference(orderId);
  }
}

function parseInput(request: RefundOrderRequest): RefundInput {
  if (!request.refundId) throw new ApiError('parameter_missing', 'refund_id is required: pick a uuid and reuse it to retry.', 'refund_id');
  if (!isUuid(request.refundId)) throw new ApiError('parameter_invalid', 'refund_id must be a uuid.', 'refund_id');
  let ticketIds: string[] | undefined;
  if (request.ticketIds.length > 0) {
    if (request.ticketIds.length > MAX_TICKETS || request.ticketIds.some((id) => id <= 0n || id >= 2n ** 63n)) {
      throw new ApiError('parameter_invalid', 'ticket_ids must be positive ticket ids.', 'ticket_ids');
    }
    ticketIds = [...new Set(request.ticketIds.map(String))];
  }
  let amountCents: bigint | undefined;
  if (request.amount !== undefined) {
    try {
      amountCents = BigInt(parseCents(request.amount));
    } catch {
      throw new ApiError('parameter_invalid', 'amount must be a decimal amount like "49.50".', 'amount');
    }
  }
  const reason = request.reason?.trim() || null;
  if (reason && reason.length > MAX_REASON) throw new ApiError('parameter_invalid', `reason is at most ${MAX_REASON} characters.`, 'reason');
  return { refundId: request.refundId.toLowerCase(), ticketIds, amountCents, reason, restock: request.restock ?? true, restockGiven: request.restock !== undefined };
}

/** A retry must ask for the refund it repeats; the same id for anything else is refused. */
function assertSameRefund(refund: RefundRow, order: OrderRow, input: RefundInput): void {
  const sameTickets = !input.ticketIds || (input.ticketIds.length === refund.ticket_ids.length && input.ticketIds.every((id) => refund.ticket_ids.includes(id)));
  const same =
    refund.order_id === order.id &&
    sameTickets &&
    (input.amountCents === undefined || input.amountCents === BigInt(refund.amount_cents)) &&
    (!input.restockGiven || input.restock === refund.restock);
  if (!same) throw new ApiError('idempotency_key_reused', 'This refund id was used for another refund; use a new refund id.', 'refund_id');
}

function refusal(message: string | null): ApiError {
  return new ApiError('parameter_invalid', `The card processor refused this refund: ${message ?? 'no reason given'}. Nothing was refunded; fix the cause and refund with a new refund id.`, 'refund_id');
}
