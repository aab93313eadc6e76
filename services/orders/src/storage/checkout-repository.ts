/** Checkout sessions and coupons in the orders schema. */
import { inTransaction, type Pool, type PoolClient } from '@partner-api/shared';

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
  /** `pending` and `failed` are internal (see claimPending); the finders never return them. */
  status: 'pending' | 'failed' | 'open' | 'expired' | 'completed';
  items: SessionItem[];
  customer: Record<string, string | null> | null;
  subtotal_cents: string;
  total_fees_cents: string;
  discount_cents: string;
  total_cents: string;
  metadata: Record<string, string>;
  expires_at: Date;
  order_id: string | null;
  coupon_id: string | null;
  /** When a payment succeeded; the order may still be being completed. */
  paid_at: Date | null;
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

  /**
   * Records the session as `pending` before its hold is asked for: a new
   * row, or an earlier attempt under the same id (pending, or failed and
   * released by the sweeper) taken up again. Undefined when the session
   * exists already in a visible state (an earlier attempt finished). Waits
   * while the sweeper has the row locked, so the two never overlap.
   */
  async claimPending(id: string, organisationId: number): Promise<{ retried: boolean } | undefined> {
    const { rows } = await this.pool.query<{ retried: boolean }>(
      `INSERT INTO checkout_sessions (id, organisation_id, event_id, status, items, subtotal_cents, total_fees_cents, discount_cents, total_cents, expires_at)
       VALUES ($1, $2, NULL, 'pending', '[]', 0, 0, 0, 0, now())
       ON CONFLICT (id) DO UPDATE SET status = 'pending', updated_at = now()
         WHERE checkout_sessions.status IN ('pending', 'failed') AND checkout_sessions.organisation_id = excluded.organisation_id
       RETURNING xmax <> 0 AS retried`,
      [id, organisationId],
    );
    return rows[0];
  }

  /** A pending session whose hold is taken becomes open; undefined when it is no longer pending (the sweeper gave up on it). */
  async openSession(session: Omit<SessionRow, 'status' | 'order_id' | 'paid_at' | 'created_at'>): Promise<SessionRow | undefined> {
    const { rows } = await this.pool.query<SessionRow>(
      `UPDATE checkout_sessions SET status = 'open', event_id = $3, items = $4, customer = $5, coupon_id = $6, subtotal_cents = $7,
              total_fees_cents = $8, discount_cents = $9, total_cents = $10, metadata = $11, expires_at = $12, created_at = now(), updated_at = now()
        WHERE id = $1 AND organisation_id = $2 AND status = 'pending' RETURNING *`,
      [
        session.id, session.organisation_id, session.event_id, JSON.stringify(session.items),
        session.customer === null ? null : JSON.stringify(session.customer), session.coupon_id, session.subtotal_cents,
        session.total_fees_cents, session.discount_cents, session.total_cents, JSON.stringify(session.metadata), session.expires_at,
      ],
    );
    return rows[0];
  }

  /** A pending session that holds nothing (refused, or its hold released) is failed; a retry may take it up again. */
  async markFailed(id: string): Promise<void> {
    await this.pool.query("UPDATE checkout_sessions SET status = 'failed', updated_at = now() WHERE id = $1 AND status = 'pending'", [id]);
  }

  /**
   * Pending sessions untouched for `olderThanSeconds`: their attempt died
   * (or its answer was lost). Each is locked while `release` returns its hold
   * to stock, then marked failed; a session locked elsewhere is skipped, and
   * one whose release fails stays pending for the next sweep.
   */
  async sweepPending(olderThanSeconds: number, limit: number, release: (session: { id: string; organisation_id: string }) => Promise<void>): Promise<number> {
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id FROM checkout_sessions WHERE status = 'pending' AND updated_at < now() - make_interval(secs => $1) ORDER BY updated_at LIMIT $2`,
      [olderThanSeconds, limit],
    );
    let swept = 0;
    for (const { id } of rows) {
      const released = await inTransaction(this.pool, async (client) => {
        const { rows: locked } = await client.query<{ id: string; organisation_id: string }>(
          `SELECT id, organisation_id FROM checkout_sessions
            WHERE id = $1 AND status = 'pending' AND updated_at < now() - make_interval(secs => $2) FOR UPDATE SKIP LOCKED`,
          [id, olderThanSeconds],
        );
        if (!locked[0]) return false;
        await release(locked[0]);
        await client.query("UPDATE checkout_sessions SET status = 'failed', updated_at = now() WHERE id = $1", [id]);
        return true;
      });
      if (released) swept += 1;
    }
    return swept;
  }

  /** Visible sessions only: pending and failed ones are internal. */
  async findSession(organisationId: number, id: string): Promise<SessionRow | undefined> {
    const { rows } = await this.pool.query<SessionRow>(
      "SELECT * FROM checkout_sessions WHERE id = $1 AND organisation_id = $2 AND status NOT IN ('pending', 'failed')",
      [id, organisationId],
    );
    return rows[0];
  }

  /** The hosted checkout knows a session by its unguessable id alone. */
  async findSessionById(id: string, client: Pool | PoolClient = this.pool, forUpdate = false): Promise<SessionRow | undefined> {
    const { rows } = await client.query<SessionRow>(
      `SELECT * FROM checkout_sessions WHERE id = $1 AND status NOT IN ('pending', 'failed')${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  }

  /** What the customer typed on the hosted checkout completes what the partner pre-filled. */
  async setCustomer(client: PoolClient, id: string, customer: Record<string, string | null>): Promise<void> {
    await client.query('UPDATE checkout_sessions SET customer = $2, updated_at = now() WHERE id = $1', [id, JSON.stringify(customer)]);
  }

  async markPaid(client: PoolClient, id: string): Promise<void> {
    await client.query('UPDATE checkout_sessions SET paid_at = coalesce(paid_at, now()), updated_at = now() WHERE id = $1', [id]);
  }

  async markCompleted(client: PoolClient, id: string): Promise<void> {
    await client.query("UPDATE checkout_sessions SET status = 'completed', order_id = id, updated_at = now() WHERE id = $1", [id]);
  }

  /** A use is counted when the order completes (decision in docs/decisions.md). */
  async countCouponUse(client: PoolClient, couponId: string): Promise<void> {
    await client.query('UPDATE coupons SET used = used + 1 WHERE id = $1', [couponId]);
  }
}
