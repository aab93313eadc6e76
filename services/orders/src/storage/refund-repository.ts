/** Refunds and the tickets they claim, in the orders schema. */
import type { Pool, PoolClient } from '@partner-api/shared';

export type RefundStatus = 'pending' | 'processed' | 'completed' | 'failed';

export interface RefundRow {
  id: string;
  order_id: string;
  organisation_id: string;
  ticket_ids: string[];
  lines: Array<{ pool_id: string; quantity: number }>;
  amount_cents: string;
  reason: string | null;
  restock: boolean;
  status: RefundStatus;
  processor_reference: string | null;
  failure_message: string | null;
  created_at: Date;
  updated_at: Date;
}

export type NewRefund = Pick<RefundRow, 'id' | 'order_id' | 'organisation_id' | 'ticket_ids' | 'lines' | 'amount_cents' | 'reason' | 'restock'>;

export class RefundRepository {
  constructor(private readonly pool: Pool) {}

  async find(id: string, client: Pool | PoolClient = this.pool): Promise<RefundRow | undefined> {
    const { rows } = await client.query<RefundRow>('SELECT * FROM refunds WHERE id = $1', [id]);
    return rows[0];
  }

  /** The tickets of `ticketIds` another refund (not failed) already claims. */
  async claimed(client: PoolClient, ticketIds: string[]): Promise<string[]> {
    const { rows } = await client.query<{ ticket_id: string }>('SELECT ticket_id FROM refund_tickets WHERE ticket_id = ANY($1::bigint[]) ORDER BY ticket_id', [ticketIds]);
    return rows.map((row) => row.ticket_id);
  }

  /** Money the order's refunds return or may still return (every refund not failed). */
  async committedCents(client: PoolClient, orderId: string): Promise<bigint> {
    const { rows } = await client.query<{ cents: string }>(
      "SELECT coalesce(sum(amount_cents), 0)::text AS cents FROM refunds WHERE order_id = $1 AND status <> 'failed'",
      [orderId],
    );
    return BigInt(rows[0]!.cents);
  }

  /** Tickets of the order's completed refunds. */
  async refundedTickets(client: PoolClient, orderId: string): Promise<string[]> {
    const { rows } = await client.query<{ ticket_id: string }>(
      "SELECT unnest(ticket_ids)::text AS ticket_id FROM refunds WHERE order_id = $1 AND status = 'completed'",
      [orderId],
    );
    return rows.map((row) => row.ticket_id);
  }

  async insert(client: PoolClient, refund: NewRefund): Promise<RefundRow> {
    const { rows } = await client.query<RefundRow>(
      `INSERT INTO refunds (id, order_id, organisation_id, ticket_ids, lines, amount_cents, reason, restock, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending') RETURNING *`,
      [refund.id, refund.order_id, refund.organisation_id, refund.ticket_ids, JSON.stringify(refund.lines), refund.amount_cents, refund.reason, refund.restock],
    );
    await client.query('INSERT INTO refund_tickets (ticket_id, refund_id) SELECT unnest($1::bigint[]), $2', [refund.ticket_ids, refund.id]);
    return rows[0]!;
  }

  async markProcessed(id: string, reference: string | null): Promise<void> {
    await this.pool.query("UPDATE refunds SET status = 'processed', processor_reference = $2, updated_at = now() WHERE id = $1 AND status = 'pending'", [id, reference]);
  }

  /** The processor refused: the refund ends and its tickets are free for another. */
  async markFailed(client: PoolClient, id: string, message: string): Promise<void> {
    await client.query("UPDATE refunds SET status = 'failed', failure_message = $2, updated_at = now() WHERE id = $1 AND status = 'pending'", [id, message]);
    await client.query('DELETE FROM refund_tickets WHERE refund_id = $1', [id]);
  }

  /** Completes a refund once: true for the one call that moved it to completed. */
  async markCompleted(client: PoolClient, id: string): Promise<boolean> {
    const result = await client.query("UPDATE refunds SET status = 'completed', updated_at = now() WHERE id = $1 AND status IN ('pending', 'processed')", [id]);
    return result.rowCount === 1;
  }

  /** Refunds left unfinished (a crash, an unanswered processor or service) since before `before`. */
  async unfinished(before: Date, limit: number): Promise<RefundRow[]> {
    const { rows } = await this.pool.query<RefundRow>(
      "SELECT * FROM refunds WHERE status IN ('pending', 'processed') AND updated_at <= $1 ORDER BY updated_at LIMIT $2",
      [before, limit],
    );
    return rows;
  }

  /** The processor's reference of the charge that paid the order's session, if any. */
  async chargeReference(sessionId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ reference: string | null }>(
      "SELECT reference FROM payment_attempts WHERE session_id = $1 AND status = 'succeeded'",
      [sessionId],
    );
    return rows[0]?.reference ?? undefined;
  }
}
