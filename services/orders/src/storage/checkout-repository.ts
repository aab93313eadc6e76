/** Checkout sessions and coupons in the orders schema. */
import { batchWrites, inTransaction, type Pool, type PoolClient } from '@partner-api/shared';

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
  /** The channel the session was started from, carried into its order. */
  sales_channel: 'api' | 'embed' | 'storefront' | 'web';
  channel_origin: string | null;
  created_at: Date;
}

type OpeningSession = Omit<SessionRow, 'status' | 'order_id' | 'paid_at' | 'created_at'>;

export class CheckoutRepository {
  /** The pending claims and openings of one tick, each written in one statement (batchWrites). */
  private readonly claims: (claim: { id: string; organisationId: number }) => Promise<{ retried: boolean } | undefined>;
  private readonly openings: (session: OpeningSession) => Promise<SessionRow | undefined>;

  constructor(private readonly pool: Pool) {
    this.claims = batchWrites({ key: (claim) => claim.id, write: (claims) => this.writeClaims(claims) });
    this.openings = batchWrites({ key: (session) => session.id, write: (sessions) => this.writeOpenings(sessions) });
  }

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
  claimPending(id: string, organisationId: number): Promise<{ retried: boolean } | undefined> {
    return this.claims({ id, organisationId });
  }

  private async writeClaims(claims: ReadonlyArray<{ id: string; organisationId: number }>): Promise<Array<{ retried: boolean } | undefined>> {
    const { rows } = await this.pool.query<{ id: string; retried: boolean }>(
      `INSERT INTO checkout_sessions (id, organisation_id, event_id, status, items, subtotal_cents, total_fees_cents, discount_cents, total_cents, expires_at)
       SELECT id, organisation_id, NULL, 'pending', '[]', 0, 0, 0, 0, now() FROM unnest($1::uuid[], $2::bigint[]) AS claim (id, organisation_id)
       ON CONFLICT (id) DO UPDATE SET status = 'pending', updated_at = now()
         WHERE checkout_sessions.status IN ('pending', 'failed') AND checkout_sessions.organisation_id = excluded.organisation_id
       RETURNING id, xmax <> 0 AS retried`,
      [claims.map((claim) => claim.id), claims.map((claim) => claim.organisationId)],
    );
    const claimed = new Map(rows.map((row) => [row.id, { retried: row.retried }]));
    return claims.map((claim) => claimed.get(claim.id));
  }

  /** A pending session whose hold is taken becomes open; undefined when it is no longer pending (the sweeper gave up on it). */
  openSession(session: OpeningSession): Promise<SessionRow | undefined> {
    return this.openings(session);
  }

  private async writeOpenings(sessions: readonly OpeningSession[]): Promise<Array<SessionRow | undefined>> {
    const column = <K extends keyof OpeningSession>(name: K) => sessions.map((session) => session[name]);
    const json = (values: unknown[]) => values.map((value) => (value === null ? null : JSON.stringify(value)));
    const { rows } = await this.pool.query<SessionRow>(
      `UPDATE checkout_sessions s
          SET status = 'open', event_id = o.event_id, items = o.items, customer = o.customer, coupon_id = o.coupon_id,
              subtotal_cents = o.subtotal_cents, total_fees_cents = o.total_fees_cents, discount_cents = o.discount_cents,
              total_cents = o.total_cents, metadata = o.metadata, expires_at = o.expires_at, sales_channel = o.sales_channel,
              channel_origin = o.channel_origin, created_at = now(), updated_at = now()
         FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::jsonb[], $5::jsonb[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],
                     $10::bigint[], $11::jsonb[], $12::timestamptz[], $13::text[], $14::text[])
              AS o (id, organisation_id, event_id, items, customer, coupon_id, subtotal_cents, total_fees_cents, discount_cents, total_cents, metadata, expires_at,
                    sales_channel, channel_origin)
        WHERE s.id = o.id AND s.organisation_id = o.organisation_id AND s.status = 'pending'
        RETURNING s.*`,
      [
        column('id'), column('organisation_id'), column('event_id'), json(column('items')), json(column('customer')), column('coupon_id'),
        column('subtotal_cents'), column('total_fees_cents'), column('discount_cents'), column('total_cents'), json(column('metadata')), column('expires_at'),
        column('sales_channel'), column('channel_origin'),
      ],
    );
    const opened = new Map(rows.map((row) => [row.id, row]));
    return sessions.map((session) => opened.get(session.id));
  }

  /** A pending session that holds nothing (refused, or its hold released) is failed; a retry may take it up again. */
  /**
   * A session whose buyer never received it (D444): locked while `release`
   * gives its hold back, then marked failed. A pending one is taken too, so
   * an attempt still under way finds it no longer pending and returns what
   * it took. A session paid for, completed, expired or failed is left as it
   * is; so is one locked elsewhere (a payment under way). True when released.
   */
  async abandon(id: string, organisationId: number, release: () => Promise<void>): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `SELECT id FROM checkout_sessions
          WHERE id = $1 AND organisation_id = $2 AND status IN ('pending', 'open') AND paid_at IS NULL FOR UPDATE SKIP LOCKED`,
        [id, organisationId],
      );
      if (!rows[0]) return false;
      await release();
      await client.query("UPDATE checkout_sessions SET status = 'failed', updated_at = now() WHERE id = $1", [id]);
      return true;
    });
  }

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

  /** Its payment was refunded before an order was made (the tickets were gone): the session may be paid again. */
  async markUnpaid(client: Pool | PoolClient, id: string): Promise<void> {
    await client.query("UPDATE checkout_sessions SET paid_at = NULL, updated_at = now() WHERE id = $1 AND status <> 'completed'", [id]);
  }

  async markCompleted(client: PoolClient, id: string): Promise<void> {
    await client.query("UPDATE checkout_sessions SET status = 'completed', order_id = id, updated_at = now() WHERE id = $1", [id]);
  }

  /** A use is counted when the order completes (decision in docs/decisions.md). */
  async countCouponUse(client: PoolClient, couponId: string): Promise<void> {
    await client.query('UPDATE coupons SET used = used + 1 WHERE id = $1', [couponId]);
  }
}
