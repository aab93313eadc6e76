/** Orders and payment attempts in the orders schema. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { SessionItem } from './checkout-repository';

export interface OrderRow {
  id: string;
  organisation_id: string;
  event_id: string;
  status: 'completed' | 'partially_refunded' | 'refunded';
  customer: Record<string, string | null>;
  items: SessionItem[];
  subtotal_cents: string;
  total_fees_cents: string;
  discount_cents: string;
  total_cents: string;
  refunded_cents: string;
  payment_method: 'stripe' | 'paypal' | 'free' | 'comp' | 'other';
  checkout_session_id: string | null;
  sales_channel: 'api' | 'embed' | 'storefront' | 'web';
  channel_origin: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  completed_at: Date;
  updated_at: Date;
}

export type AttemptStatus = 'processing' | 'succeeded' | 'declined' | 'refunded' | 'abandoned';

export interface AttemptRow {
  id: string;
  session_id: string;
  organisation_id: string;
  provider: string;
  status: AttemptStatus;
  amount_cents: string;
  reference: string | null;
  decline_code: string | null;
  decline_message: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OrderFilter {
  organisationId: number;
  eventId?: string;
  /** completed: no refunded tickets; refunded: at least one. */
  status: 'completed' | 'refunded' | 'all';
  updatedSince?: Date;
  /** Keyset: strictly older than this (created_at, id). */
  before?: { createdAt: string; id: string };
  limit: number;
}

export class OrderRepository {
  constructor(private readonly pool: Pool) {}

  async find(organisationId: number, id: string): Promise<OrderRow | undefined> {
    const { rows } = await this.pool.query<OrderRow>('SELECT * FROM orders WHERE id = $1 AND organisation_id = $2', [id, organisationId]);
    return rows[0];
  }

  async findById(id: string, client: Pool | PoolClient = this.pool): Promise<OrderRow | undefined> {
    const { rows } = await client.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [id]);
    return rows[0];
  }

  /** The order, locked until the transaction ends: refunds of one order take turns. */
  async lock(client: PoolClient, organisationId: number, id: string): Promise<OrderRow | undefined> {
    const { rows } = await client.query<OrderRow>('SELECT * FROM orders WHERE id = $1 AND organisation_id = $2 FOR UPDATE', [id, organisationId]);
    return rows[0];
  }

  async applyRefund(client: PoolClient, id: string, amountCents: string, status: OrderRow['status']): Promise<void> {
    await client.query('UPDATE orders SET refunded_cents = refunded_cents + $2, status = $3, updated_at = now() WHERE id = $1', [id, amountCents, status]);
  }

  /** Newest first; one row more than the limit tells whether another page exists. */
  async list(filter: OrderFilter): Promise<Array<OrderRow & { created_key: string }>> {
    const where = ['organisation_id = $1'];
    const values: unknown[] = [filter.organisationId];
    const add = (clause: (n: number) => string, value: unknown) => {
      values.push(value);
      where.push(clause(values.length));
    };
    if (filter.eventId !== undefined) add((n) => `event_id = $${n}`, filter.eventId);
    if (filter.status === 'completed') where.push("status = 'completed'");
    if (filter.status === 'refunded') where.push("status IN ('partially_refunded', 'refunded')");
    if (filter.updatedSince) add((n) => `updated_at >= $${n}`, filter.updatedSince);
    if (filter.before) {
      values.push(filter.before.createdAt, filter.before.id);
      where.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
    }
    values.push(filter.limit + 1);
    // created_key keeps microseconds, which a JS Date would drop.
    const { rows } = await this.pool.query<OrderRow & { created_key: string }>(
      `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key
       FROM orders WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    return rows;
  }

  /** Inserts the order unless it exists; true when this call created it. */
  async insert(client: PoolClient, order: Omit<OrderRow, 'status' | 'refunded_cents' | 'created_at' | 'completed_at' | 'updated_at'>): Promise<boolean> {
    const result = await client.query(
      `INSERT INTO orders (id, organisation_id, event_id, status, customer, items, subtotal_cents, total_fees_cents, discount_cents,
                           total_cents, payment_method, checkout_session_id, sales_channel, channel_origin, metadata)
       VALUES ($1, $2, $3, 'completed', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (id) DO NOTHING`,
      [
        order.id, order.organisation_id, order.event_id, JSON.stringify(order.customer), JSON.stringify(order.items), order.subtotal_cents,
        order.total_fees_cents, order.discount_cents, order.total_cents, order.payment_method, order.checkout_session_id,
        order.sales_channel, order.channel_origin, JSON.stringify(order.metadata),
      ],
    );
    return result.rowCount === 1;
  }

  async attemptsFor(sessionId: string, client: Pool | PoolClient = this.pool): Promise<AttemptRow[]> {
    const { rows } = await client.query<AttemptRow>('SELECT * FROM payment_attempts WHERE session_id = $1 ORDER BY created_at', [sessionId]);
    return rows;
  }

  async insertAttempt(client: PoolClient, attempt: Pick<AttemptRow, 'id' | 'session_id' | 'organisation_id' | 'provider' | 'status' | 'amount_cents'>): Promise<void> {
    await client.query(
      'INSERT INTO payment_attempts (id, session_id, organisation_id, provider, status, amount_cents) VALUES ($1, $2, $3, $4, $5, $6)',
      [attempt.id, attempt.session_id, attempt.organisation_id, attempt.provider, attempt.status, attempt.amount_cents],
    );
  }

  async settleAttempt(
    client: Pool | PoolClient,
    id: string,
    outcome: { status: AttemptStatus; reference?: string; declineCode?: string; declineMessage?: string },
  ): Promise<void> {
    await client.query(
      `UPDATE payment_attempts SET status = $2, reference = coalesce($3, reference), decline_code = $4, decline_message = $5, updated_at = now()
       WHERE id = $1`,
      [id, outcome.status, outcome.reference ?? null, outcome.declineCode ?? null, outcome.declineMessage ?? null],
    );
  }

  /**
   * Paid sessions whose order is not there yet (after `paidBefore`), and
   * charges whose outcome was never recorded (started before `chargedBefore`).
   */
  async unfinishedAttempts(paidBefore: Date, chargedBefore: Date, limit: number): Promise<AttemptRow[]> {
    const { rows } = await this.pool.query<AttemptRow>(
      `SELECT a.* FROM payment_attempts a JOIN checkout_sessions s ON s.id = a.session_id
       WHERE s.status <> 'completed'
         AND ((a.status = 'succeeded' AND a.updated_at <= $1) OR (a.status = 'processing' AND a.updated_at <= $2))
       ORDER BY a.updated_at LIMIT $3`,
      [paidBefore, chargedBefore, limit],
    );
    return rows;
  }
}
