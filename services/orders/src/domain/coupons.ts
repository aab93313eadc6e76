/** Coupon administration (partnerctl): percent or fixed-amount codes per event. */
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { ApiError, formatCents, formatOptionalTimestamp, parseCents, type gen, type InventoryClient, type RequestContext } from '@partner-api/shared';
import type { CheckoutRepository } from '../storage/checkout-repository';

type CouponInput = MessageShape<typeof gen.orders.CouponSchema>;
type CouponInit = MessageInitShape<typeof gen.orders.CouponSchema>;

const invalid = (param: string, message: string) => new ApiError('parameter_invalid', message, param);

function time(param: string, value: string | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(param, `${param} must be an ISO-8601 time.`);
  return date;
}

export class Coupons {
  constructor(
    private readonly repository: CheckoutRepository,
    private readonly inventory: InventoryClient,
  ) {}

  async upsert(ctx: RequestContext, input: CouponInput): Promise<CouponInit> {
    if (!/^[A-Za-z0-9_-]{2,64}$/.test(input.code)) throw invalid('code', 'code is 2 to 64 letters, digits, - or _.');
    if (input.kind !== 'percent' && input.kind !== 'amount') throw invalid('kind', 'kind is percent or amount.');
    let value: bigint;
    if (input.kind === 'percent') {
      if (!/^\d{1,3}$/.test(input.value) || Number(input.value) < 1 || Number(input.value) > 100) throw invalid('value', 'A percent coupon takes 1 to 100.');
      value = BigInt(input.value);
    } else {
      try {
        value = BigInt(parseCents(input.value));
      } catch {
        throw invalid('value', 'An amount coupon takes a decimal amount like "10.00".');
      }
      if (value <= 0n) throw invalid('value', 'An amount coupon takes more than 0.00.');
    }
    if (input.maxUses !== undefined && input.maxUses < 1) throw invalid('max_uses', 'max_uses is at least 1.');
    // The event must be the organisation's: inventory says so (or answers resource_missing).
    const event = await this.inventory.getEvent({ idOrSlug: input.eventId.toString() }, ctx);
    const stored = await this.repository.upsertCoupon({
      organisationId: ctx.organisationId,
      eventId: event.id.toString(),
      code: input.code,
      kind: input.kind,
      value,
      validFrom: time('valid_from', input.validFrom),
      validUntil: time('valid_until', input.validUntil),
      maxUses: input.maxUses ?? null,
    });
    if (!stored) throw invalid('code', 'This code belongs to another organisation.');
    return {
      object: 'coupon',
      code: stored.code,
      eventId: BigInt(stored.event_id),
      kind: stored.kind,
      value: stored.kind === 'percent' ? stored.value : formatCents(BigInt(stored.value)),
      validFrom: formatOptionalTimestamp(stored.valid_from),
      validUntil: formatOptionalTimestamp(stored.valid_until),
      maxUses: stored.max_uses ?? undefined,
      used: stored.used,
    };
  }
}
