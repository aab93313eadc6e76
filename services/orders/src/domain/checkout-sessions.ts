/**
 * Creating and reading checkout sessions. A live session holds its tickets
 * through inventory (the session id is the hold id) for about 15 minutes;
 * a test-key session is the same validation and pricing with nothing held
 * and nothing stored.
 */
import { randomUUID } from 'node:crypto';
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { ApiError, formatCents, formatTimestamp, type gen, isDryRun, notFound, parseCents, type Logger, type RequestContext, type ServiceClient } from '@partner-api/shared';
import type { CheckoutRepository, CouponRow, SessionRow } from '../storage/checkout-repository';
import { totalsFor, type CouponTerms } from './totals';

type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;
type CreateRequest = MessageShape<typeof gen.orders.CreateCheckoutSessionRequestSchema>;
export type SessionInit = MessageInitShape<typeof gen.orders.CheckoutSessionSchema>;

export interface CheckoutSettings {
  checkoutBaseUrl: string;
  holdSeconds: number;
}

function usableCoupon(coupon: CouponRow | undefined, now: Date): CouponTerms {
  const invalid = () => new ApiError('parameter_invalid', 'This coupon code is not valid for this event.', 'coupon_code');
  if (!coupon) throw invalid();
  if (coupon.valid_from && coupon.valid_from > now) throw invalid();
  if (coupon.valid_until && coupon.valid_until <= now) throw invalid();
  if (coupon.max_uses !== null && coupon.used >= coupon.max_uses) throw invalid();
  return { kind: coupon.kind, value: BigInt(coupon.value) };
}

export class CheckoutSessions {
  constructor(
    private readonly repository: CheckoutRepository,
    private readonly inventory: InventoryClient,
    private readonly settings: CheckoutSettings,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async create(ctx: RequestContext, request: CreateRequest): Promise<SessionInit> {
    const dryRun = isDryRun(ctx);
    const id = randomUUID();
    const held = await this.inventory.holdStock(
      {
        holdId: id,
        eventIdOrSlug: request.eventIdOrSlug,
        lines: request.items.map((item) => ({ ticketTypeId: item.ticketTypeId, quantity: item.quantity, poolId: item.poolId })),
        ttlSeconds: this.settings.holdSeconds,
        dryRun,
      },
      ctx,
    );
    const lines = held.lines.map((line) => ({
      totalCents: BigInt(parseCents(line.total)),
      unitBookingFeeCents: BigInt(parseCents(line.unitBookingFee)),
      quantity: line.quantity,
    }));
    let coupon: CouponRow | undefined;
    let terms: CouponTerms | undefined;
    try {
      if (request.couponCode !== undefined) {
        coupon = await this.repository.findCoupon(ctx.organisationId, held.eventId.toString(), request.couponCode);
        terms = usableCoupon(coupon, this.clock());
      }
    } catch (error) {
      if (!dryRun) await this.releaseQuietly(id, ctx);
      throw error;
    }
    // Test keys validate the coupon but never apply it.
    const totals = totalsFor(lines, dryRun ? undefined : terms);
    const items = held.lines.map((line) => ({
      ticket_type_id: line.ticketTypeId.toString(),
      pool_id: line.poolId.toString(),
      name: line.name,
      quantity: line.quantity,
      unit_price: line.unitPrice,
      total: line.total,
    }));
    const customer = request.customer
      ? { email: request.customer.email ?? null, first_name: request.customer.firstName ?? null, last_name: request.customer.lastName ?? null, phone: request.customer.phone ?? null }
      : null;

    if (dryRun) {
      return this.view(
        { id: '', organisation_id: String(ctx.organisationId), event_id: held.eventId.toString(), status: 'open', items, customer,
          subtotal_cents: String(totals.subtotal), total_fees_cents: String(totals.totalFees), discount_cents: '0', total_cents: String(totals.subtotal),
          metadata: request.metadata, expires_at: new Date(0), order_id: null, coupon_id: null, paid_at: null, created_at: this.clock() },
        { dryRun: true, eventUrl: held.eventUrl },
      );
    }
    try {
      const session = await this.repository.insertSession({
        id, organisation_id: String(ctx.organisationId), event_id: held.eventId.toString(), items, customer, coupon_id: coupon?.id ?? null,
        subtotal_cents: String(totals.subtotal), total_fees_cents: String(totals.totalFees), discount_cents: String(totals.discount),
        total_cents: String(totals.total), metadata: request.metadata, expires_at: new Date(Date.parse(held.expiresAt!)),
      });
      return this.view(session);
    } catch (error) {
      this.logger.error({ err: error, sessionId: id }, 'storing a checkout session failed');
      await this.releaseQuietly(id, ctx);
      throw new ApiError('hold_failed', 'Tickets could not be held; retry with the same Idempotency-Key.');
    }
  }

  async get(ctx: RequestContext, id: string): Promise<SessionInit> {
    const session = /^[0-9a-f-]{36}$/i.test(id) ? await this.repository.findSession(ctx.organisationId, id) : undefined;
    if (!session) throw notFound('checkout session');
    return this.view(session);
  }

  private async releaseQuietly(holdId: string, ctx: RequestContext): Promise<void> {
    // The hold expires by itself if this fails too.
    await this.inventory.releaseHold({ holdId }, ctx).catch((error: unknown) => this.logger.warn({ err: error, holdId }, 'could not release a hold'));
  }

  private view(session: SessionRow, dryRun?: { dryRun: true; eventUrl: string }): SessionInit {
    // A dry run holds nothing, so nothing can lapse: it reads as the open session it stands for.
    const expired = !dryRun && session.status === 'open' && session.paid_at === null && session.expires_at.getTime() <= this.clock().getTime();
    return {
      object: 'checkout_session',
      id: dryRun ? undefined : session.id,
      status: expired ? 'expired' : session.status,
      livemode: !dryRun,
      dryRun: Boolean(dryRun),
      eventId: BigInt(session.event_id),
      checkoutUrl: dryRun ? dryRun.eventUrl : `${this.settings.checkoutBaseUrl}/checkout/${session.id}`,
      expiresAt: dryRun ? undefined : formatTimestamp(session.expires_at),
      currency: 'AUD',
      subtotal: formatCents(BigInt(session.subtotal_cents)),
      totalFees: formatCents(BigInt(session.total_fees_cents)),
      discount: formatCents(BigInt(session.discount_cents)),
      total: formatCents(BigInt(session.total_cents)),
      items: session.items.map((item) => ({
        ticketTypeId: BigInt(item.ticket_type_id),
        poolId: BigInt(item.pool_id),
        name: item.name,
        quantity: item.quantity,
        unitPrice: item.unit_price,
        total: item.total,
      })),
      customer: session.customer
        ? {
            email: session.customer.email ?? undefined,
            firstName: session.customer.first_name ?? undefined,
            lastName: session.customer.last_name ?? undefined,
            phone: session.customer.phone ?? undefined,
          }
        : undefined,
      orderId: session.order_id ?? undefined,
      metadata: session.metadata,
      createdAt: formatTimestamp(session.created_at),
    };
  }
}
