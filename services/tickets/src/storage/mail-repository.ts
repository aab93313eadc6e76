/** The emails waiting to be sent, sent and failed (`ticket_mails`, D410–D416). */
import type { Pool, PoolClient } from '@partner-api/shared';

export type TicketMailKind = 'order' | 'order_resend' | 'transfer_received' | 'transfer_moved';
export type TicketMailState = 'pending' | 'sent' | 'failed' | 'skipped';

export interface TicketMailRow {
  id: string;
  organisation_id: string;
  kind: TicketMailKind;
  dedupe_key: string;
  order_id: string | null;
  ticket_id: string | null;
  barcode: string | null;
  recipient: string;
  recipient_name: string | null;
  requested_by: string | null;
  state: TicketMailState;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

export interface NewTicketMail {
  organisationId: number | string;
  kind: TicketMailKind;
  dedupeKey: string;
  orderId?: string | null;
  ticketId?: string | null;
  barcode?: string | null;
  recipient: string;
  recipientName?: string | null;
  requestedBy?: string | null;
}

export class MailRepository {
  constructor(private readonly pool: Pool) {}

  /** Queues a mail once per dedupe key; true when this call queued it. */
  async queue(mail: NewTicketMail, client: Pool | PoolClient = this.pool): Promise<boolean> {
    const { rowCount } = await client.query(
      `INSERT INTO ticket_mails (organisation_id, kind, dedupe_key, order_id, ticket_id, barcode, recipient, recipient_name, requested_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (dedupe_key) DO NOTHING`,
      [mail.organisationId, mail.kind, mail.dedupeKey, mail.orderId ?? null, mail.ticketId ?? null, mail.barcode ?? null, mail.recipient, mail.recipientName ?? null, mail.requestedBy ?? null],
    );
    return rowCount === 1;
  }

  /** Claims up to `limit` due mails for `leaseMs`, counting the attempt. */
  async claimDue(limit: number, leaseMs: number): Promise<TicketMailRow[]> {
    const { rows } = await this.pool.query<TicketMailRow>(
      `UPDATE ticket_mails SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id IN (SELECT id FROM ticket_mails WHERE state = 'pending' AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [limit, leaseMs],
    );
    return rows;
  }

  async sent(id: string): Promise<void> {
    await this.pool.query("UPDATE ticket_mails SET state = 'sent', sent_at = now(), last_error = NULL WHERE id = $1", [id]);
  }

  async skipped(id: string, why: string): Promise<void> {
    await this.pool.query("UPDATE ticket_mails SET state = 'skipped', last_error = $2 WHERE id = $1", [id, why]);
  }

  /** A failed attempt: due again after `retryInMs`, or given up (`failed`) when that is null. */
  async failed(id: string, error: string, retryInMs: number | null): Promise<void> {
    await this.pool.query(
      `UPDATE ticket_mails SET last_error = $2,
              state = CASE WHEN $3::double precision IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN $3::double precision IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $3::double precision / 1000) END
        WHERE id = $1`,
      [id, error.slice(0, 500), retryInMs],
    );
  }

  /** Resends of the order queued since `since` (for the rate limit). */
  async resendsSince(organisationId: number, orderId: string, since: Date, client: Pool | PoolClient = this.pool): Promise<number> {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM ticket_mails WHERE organisation_id = $1 AND order_id = $2 AND kind = 'order_resend' AND created_at >= $3",
      [organisationId, orderId, since],
    );
    return Number(rows[0]!.n);
  }

  /** The order's own mail (the first one), to find its buyer's address for a resend. */
  async byDedupeKey(dedupeKey: string, client: Pool | PoolClient = this.pool): Promise<TicketMailRow | undefined> {
    const { rows } = await client.query<TicketMailRow>('SELECT * FROM ticket_mails WHERE dedupe_key = $1', [dedupeKey]);
    return rows[0];
  }

  async orderMail(organisationId: number, orderId: string, client: Pool | PoolClient = this.pool): Promise<TicketMailRow | undefined> {
    const { rows } = await client.query<TicketMailRow>("SELECT * FROM ticket_mails WHERE organisation_id = $1 AND order_id = $2 AND kind = 'order'", [organisationId, orderId]);
    return rows[0];
  }

  /** Every mail of the order, oldest first. */
  async forOrder(organisationId: number, orderId: string): Promise<TicketMailRow[]> {
    const { rows } = await this.pool.query<TicketMailRow>('SELECT * FROM ticket_mails WHERE organisation_id = $1 AND order_id = $2 ORDER BY id', [organisationId, orderId]);
    return rows;
  }

  /** The organisation's mails given up, newest first. */
  async failedMails(organisationId: number, limit: number): Promise<TicketMailRow[]> {
    const { rows } = await this.pool.query<TicketMailRow>(
      "SELECT * FROM ticket_mails WHERE organisation_id = $1 AND state = 'failed' ORDER BY created_at DESC, id DESC LIMIT $2",
      [organisationId, limit],
    );
    return rows;
  }

  /** Takes the order's row lock (a transaction-scoped advisory lock), so two resends count one after the other. */
  async lockOrder(client: PoolClient, orderId: string): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('ticket_mails:' || $1))", [orderId]);
  }
}
