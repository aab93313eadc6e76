/**
 * Creating and reading checkout sessions. A live session holds its tickets
 * through inventory (the session id is the hold id) for about 15 minutes;
 * a test-key session is the same validation and pricing with nothing held
 * and nothing stored. Sessions are `pending` (internal) from before their
 * hold is asked for until it is taken, and `failed` (internal) when their
 * hold was refused or released by the sweeper.
 */
import { randomUUID } from 'node:crypto';
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { ApiError, CallShed, customerFields, customerMessage, deadlinePassed, formatCents, formatTimestamp, type gen, holdFailed, isDryRun, isUuid, notFound, operatorContext, parseCents, ServiceUnanswered, withoutDeadline, type InventoryClient, type Logger, type RequestContext } from '@partner-api/shared';
import type { CheckoutRepository, CouponRow, SessionRow } from '../storage/checkout-repository';
import { API_CHANNEL, type ChannelOfSession } from './sales-channels';
import { totalsFor, type CouponTerms } from './totals';

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

/** How long a hold or release call may take; pending sessions are swept well after this. */
export const HOLD_DEADLINE_MS = 5_000;


/** Inventory down, its answer lost, or its own hold_failed/internal_error: the hold's fate is unknown. */
const unanswered = (error: unknown) => error instanceof ServiceUnanswered || !(error instanceof ApiError) || error.httpStatus >= 500;

function customerRow(request: CreateRequest): SessionRow['customer'] {
  return request.customer ? customerFields(request.customer) : null;
}

export class CheckoutSessions {
  constructor(
    private readonly repository: CheckoutRepository,
    private readonly inventory: InventoryClient,
    private readonly settings: CheckoutSettings,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * A live session is recorded as pending before its hold is asked for,
   * under an id fixed before the first attempt (the caller's, derived from
   * the API key and Idempotency-Key), so nothing is held that this service
   * does not know of: a retry finishes the same session and hold, and the
   * sweeper releases what nobody finished. An inventory that is down or whose
   * answer is lost is `hold_failed` (a retry is safe); the session stays
   * pending for the retry or the sweeper. Every channel takes this one path
   * (the same checks, limits and stock rules); `channel` is kept on the
   * session and goes to its order.
   */
  async create(ctx: RequestContext, request: CreateRequest, channel: ChannelOfSession = API_CHANNEL): Promise<SessionInit> {
    if (isDryRun(ctx)) return this.dryRun(ctx, request);
    const id = request.sessionId !== undefined && isUuid(request.sessionId) ? request.sessionId.toLowerCase() : randomUUID();
    const claim = await this.repository.claimPending(id, ctx.organisationId);
    if (!claim) {
      // An earlier attempt finished it; its answer was lost on the way.
      const earlier = await this.repository.findSession(ctx.organisationId, id);
      if (!earlier || earlier.sales_channel !== channel.salesChannel) throw new ApiError('parameter_invalid', 'This checkout session id is already used.', 'session_id');
      return this.view(earlier);
    }

    let held: MessageShape<typeof gen.inventory.HoldStockResponseSchema>;
    try {
      held = await this.holdStock(ctx, id, request);
    } catch (error) {
      if (unanswered(error)) throw holdFailed();
      // Refused: nothing is held (inventory abandons what it refuses; a retry may find a hold an earlier attempt recorded).
      if (claim.retried) await this.release(id, ctx);
      await this.repository.markFailed(id);
      throw error;
    }
    if (deadlinePassed(ctx, this.clock().getTime())) {
      // Its caller has stopped waiting and will never see this session: the hold goes back now, not in 15 minutes (D444).
      // A retry with the same Idempotency-Key claims the failed session again and holds afresh.
      await this.release(id, ctx);
      await this.repository.markFailed(id);
      throw new CallShed('deadline');
    }

    let coupon: CouponRow | undefined;
    let terms: CouponTerms | undefined;
    try {
      if (request.couponCode !== undefined) {
        coupon = await this.repository.findCoupon(ctx.organisationId, held.eventId.toString(), request.couponCode);
        terms = usableCoupon(coupon, this.clock());
      }
    } catch (error) {
      if (error instanceof ApiError && error.httpStatus < 500) {
        await this.release(id, ctx);
        await this.repository.markFailed(id);
        throw error;
      }
      throw holdFailed();
    }
    const { totals, items } = this.priced(held, terms);
    let session: SessionRow | undefined;
    try {
      session = await this.repository.openSession({
        id, organisation_id: String(ctx.organisationId), event_id: held.eventId.toString(), items, customer: customerRow(request), coupon_id: coupon?.id ?? null,
        subtotal_cents: String(totals.subtotal), total_fees_cents: String(totals.totalFees), discount_cents: String(totals.discount),
        total_cents: String(totals.total), metadata: request.metadata, expires_at: new Date(Date.parse(held.expiresAt!)),
        sales_channel: channel.salesChannel, channel_origin: channel.origin,
      });
    } catch (error) {
      // Still pending: a retry finishes it, or the sweeper releases its hold.
      this.logger.error({ err: error, sessionId: id }, 'storing a checkout session failed');
      throw holdFailed();
    }
    if (!session) {
      // The sweeper gave up on this attempt while it ran: return what it took.
      await this.release(id, ctx);
      throw holdFailed();
    }
    return this.view(session);
  }

  /**
   * Opens the checkout session of a waiting-list offer, on the offer's hold
   * (the session id is the hold id, as for every session): claimed as
   * pending, priced from the offer and opened like any session, holding no
   * new stock. The customer's email link leads here; a session already
   * opened is left as it is. False when the id is no live offer of the
   * organisation's.
   */
  async openOffer(organisationId: string, holdId: string, requestId: string): Promise<boolean> {
    if (!isUuid(holdId)) return false;
    let offer: MessageShape<typeof gen.inventory.WaitlistOfferSchema>;
    try {
      offer = await this.inventory.getWaitlistOffer({ holdId }, operatorContext(Number(organisationId), requestId), { deadlineMs: HOLD_DEADLINE_MS });
    } catch (error) {
      if (unanswered(error)) throw error;
      return false;
    }
    const claim = await this.repository.claimPending(holdId, Number(offer.organisationId));
    // Opened before (the customer came back, perhaps after paying): the session shows what became of it.
    if (!claim) return true;
    if (offer.state !== 'offered' || !offer.hold) {
      await this.repository.markFailed(holdId);
      return false;
    }
    const { totals, items } = this.priced(offer.hold, undefined);
    const session = await this.repository.openSession({
      id: holdId, organisation_id: offer.organisationId.toString(), event_id: offer.hold.eventId.toString(), items,
      customer: { email: offer.email, first_name: null, last_name: null, phone: null }, coupon_id: null,
      subtotal_cents: String(totals.subtotal), total_fees_cents: String(totals.totalFees), discount_cents: String(totals.discount),
      total_cents: String(totals.total), metadata: { waitlist_offer: 'true' }, expires_at: new Date(Date.parse(offer.hold.expiresAt!)),
      // Sold on the platform's own pages (the join page, the emailed link): the web channel (D259).
      sales_channel: 'web', channel_origin: null,
    });
    return session !== undefined;
  }

  /**
   * Releases the holds of pending sessions older than `olderThanSeconds`
   * (their attempt died or lost its answer) and marks them failed; a retry
   * with the same key can still complete them. Returns how many.
   */
  async sweepPending(olderThanSeconds: number, limit = 100): Promise<number> {
    return this.repository.sweepPending(olderThanSeconds, limit, async (session) => {
      const ctx = operatorContext(Number(session.organisation_id), `sweep_${session.id}`);
      await this.inventory.releaseHold({ holdId: session.id }, ctx, { deadlineMs: HOLD_DEADLINE_MS });
    });
  }

  /** Test keys: the same validation and pricing, nothing held and nothing stored. */
  private async dryRun(ctx: RequestContext, request: CreateRequest): Promise<SessionInit> {
    const held = await this.holdStock(ctx, '', request).catch((error: unknown) => {
      throw unanswered(error) ? holdFailed() : error;
    });
    if (request.couponCode !== undefined) {
      // Test keys validate the coupon but never apply it.
      usableCoupon(await this.repository.findCoupon(ctx.organisationId, held.eventId.toString(), request.couponCode), this.clock());
    }
    const { totals, items } = this.priced(held, undefined);
    return this.view(
      { id: '', organisation_id: String(ctx.organisationId), event_id: held.eventId.toString(), status: 'open', items, customer: customerRow(request),
        subtotal_cents: String(totals.subtotal), total_fees_cents: String(totals.totalFees), discount_cents: '0', total_cents: String(totals.subtotal),
        metadata: request.metadata, expires_at: new Date(0), order_id: null, coupon_id: null, paid_at: null, created_at: this.clock(),
        sales_channel: 'api', channel_origin: null },
      { dryRun: true, eventUrl: held.eventUrl },
    );
  }

  /** A test key's ctx makes it a dry run: inventory prices and holds nothing. */
  private holdStock(ctx: RequestContext, holdId: string, request: CreateRequest) {
    return this.inventory.holdStock(
      {
        holdId,
        eventIdOrSlug: request.eventIdOrSlug,
        lines: request.items.map((item) => ({ ticketTypeId: item.ticketTypeId, quantity: item.quantity, poolId: item.poolId })),
        ttlSeconds: this.settings.holdSeconds,
      },
      ctx,
      { deadlineMs: HOLD_DEADLINE_MS },
    );
  }

  private priced(held: MessageShape<typeof gen.inventory.HoldStockResponseSchema>, terms: CouponTerms | undefined) {
    const totals = totalsFor(
      held.lines.map((line) => ({
        totalCents: BigInt(parseCents(line.total)),
        unitBookingFeeCents: BigInt(parseCents(line.unitBookingFee)),
        quantity: line.quantity,
      })),
      terms,
    );
    const items = held.lines.map((line) => ({
      ticket_type_id: line.ticketTypeId.toString(),
      pool_id: line.poolId.toString(),
      name: line.name,
      quantity: line.quantity,
      unit_price: line.unitPrice,
      total: line.total,
    }));
    return { totals, items };
  }

  /** Only API sessions are checkout session objects; the other channels' sessions are internal (D246). */
  async get(ctx: RequestContext, id: string): Promise<SessionInit> {
    const session = isUuid(id) ? await this.repository.findSession(ctx.organisationId, id) : undefined;
    if (!session || session.sales_channel !== 'api') throw notFound('checkout session');
    return this.view(session);
  }

  /**
   * Gives back the hold of a session whose buyer never received it (D444):
   * the gateway's answer could not be delivered. False when there was
   * nothing to give back. Test keys hold nothing.
   */
  async abandon(ctx: RequestContext, id: string): Promise<boolean> {
    if (isDryRun(ctx) || !isUuid(id)) return false;
    return this.repository.abandon(id.toLowerCase(), ctx.organisationId, async () => {
      await this.inventory.releaseHold({ holdId: id.toLowerCase() }, withoutDeadline(ctx), { deadlineMs: HOLD_DEADLINE_MS });
    });
  }

  /**
   * Returns a hold to stock, however late its request is (the release is
   * the platform's, not the caller's); when that fails the session stays
   * pending and the sweeper tries again.
   */
  private async release(holdId: string, ctx: RequestContext): Promise<void> {
    try {
      await this.inventory.releaseHold({ holdId }, withoutDeadline(ctx), { deadlineMs: HOLD_DEADLINE_MS });
    } catch (error) {
      this.logger.warn({ err: error, holdId }, 'could not release a hold');
      throw holdFailed();
    }
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
      customer: session.customer ? customerMessage(session.customer) : undefined,
      orderId: session.order_id ?? undefined,
      metadata: session.metadata,
      createdAt: formatTimestamp(session.created_at),
    };
  }
}
