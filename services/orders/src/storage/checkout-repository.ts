/** Checkout sessions and coupons in the orders schema. */
import type { Pool } from '@partner-api/shared';

export interface CouponRow {
  id: string;
  kind: 'percent' | 'amount';
  value: string;
  valid_from: Date | null;
  valid_until: Date | null;
  max_uses: number | null;
  used: number;
}

export interface SessionItem {
  ticket_type_id: string;
  pool_id: string;
  name: string;
  quantity: number;
  unit_price: string;
  total: string;
}

export interface SessionRow {
  id: string;
  organisation_id: string;
  event_id: string;
  status: 'open' | 'expired' | 'completed';
  items: SessionItem[];
  customer: Record<string, string | null> | null;
  subtotal_cents: string;
  total_fees_cents: string;
  discount_cents: string;
  total_cents: string;
  metadata: Record<string, string>;
  expires_at: Date;
  order_id: string | null;
  created_at: Date;
}

export class CheckoutRepository {
  constructor(private readonly pool: Pool) {}

  async findCoupon(organisationId: number, eventId: string, code: string): Promise<CouponRow | undefined> {
    const { rows } = await this.pool.query<CouponRow>(
      'SELECT * FROM coupons WHERE organisation_id = $1 AND event_id = $2 AND code = upper($3)',
      [organisationId, eventId, code],
    );
    return rows[0];
  }

  /** Creates or replaces the coupon with this code for the event. */
  async upsertCoupon(coupon: {
    organisationId: number;
    eventId: string;
    code: string;
    kind: 'percent' | 'amount';
    value: bigint;
    validFrom: Date | null;
    validUntil: Date | null;
    maxUses: number | null;
  }): Promise<CouponRow & { code: string; event_id: string }> {
    const { rows } = await this.pool.query<CouponRow & { code: string; event_id: string }>(
      `INSERT INTO coupons (organisation_id, event_id, code, kind, value, valid_from, valid_until, max_uses)
       VALUES ($1, $2, upper($3), $4, $5, $6, $7, $8)
       ON CONFLICT (event_id, code) DO UPDATE
         SET kind = EXCLUDED.kind, value = EXCLUDED.value, valid_from = EXCLUDED.valid_from,
             valid_until = EXCLUDED.valid_until, max_uses = EXCLUDED.max_uses
       WHERE coupons.organisation_id = EXCLUDED.organisation_id
       RETURNING *`,
      [coupon.organisationId, coupon.eventId, coupon.code, coupon.kind, coupon.value, coupon.validFrom, coupon.validUntil, coupon.maxUses],
    );
    return rows[0]!;
  }

  async insertSession(session: Omit<SessionRow, 'status' | 'order_id' | 'created_at'> & { coupon_id: string | null }): Promise<SessionRow> {
    const { rows } = await this.pool.query<SessionRow>(
      `INSERT INTO checkout_sessions (id, organisation_id, event_id, status, items, customer, coupon_id, subtotal_cents,
                                      total_fees_cents, discount_cents, total_cents, metadata, expires_at)
       VALUES ($1, $2, $3, 'open', $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
      [
        session.id, session.organisation_id, session.event_id, JSON.stringify(session.items),
        session.customer === null ? null : JSON.stringify(session.customer), session.coupon_id, session.subtotal_cents,
        session.total_fees_cents, session.discount_cents, session.total_cents, JSON.stringify(session.metadata), session.expires_at,
      ],
    );
    return rows[0]!;
  }

  async findSession(organisationId: number, id: string): Promise<SessionRow | undefined> {
    const { rows } = await this.pool.query<SessionRow>('SELECT * FROM checkout_sessions WHERE id = $1 AND organisation_id = $2', [id, organisationId]);
    return rows[0];
  }
}
