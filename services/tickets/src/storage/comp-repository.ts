/** Comp batches and their guest emails in the tickets schema (see migrations/1763800000800_comp_tickets.sql). */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { TicketRow } from './ticket-repository';

export interface CompBatchRow {
  id: string;
  organisation_id: string;
  event_id_or_slug: string;
  ticket_type_id: string;
  pool_id: string | null;
  requested: number;
  failed: Array<{ email: string; reason: string }>;
  note: string | null;
  state: 'taking' | 'issued' | 'returned';
  created_at: Date;
  updated_at: Date;
}

export interface NewCompBatch {
  id: string;
  organisationId: number;
  eventIdOrSlug: string;
  ticketTypeId: string;
  poolId: string | null;
  requested: number;
  note: string | null;
}

export interface DueEmail {
  ticket_id: string;
  attempts: number;
  event_title: string;
  event_starts_at: Date;
}

type Queryable = Pick<Pool | PoolClient, 'query'>;

export class CompRepository {
  constructor(private readonly pool: Pool) {}

  async findBatch(id: string, client: Queryable = this.pool, forUpdate = false): Promise<CompBatchRow | undefined> {
    const { rows } = await client.query<CompBatchRow>(`SELECT * FROM comp_batches WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0];
  }

  /**
   * Records a batch about to take stock, or takes up a returned one again
   * (a retry after a failure). Undefined when the id is another
   * organisation's or names another request.
   */
  async startBatch(batch: NewCompBatch): Promise<CompBatchRow | undefined> {
    const { rows } = await this.pool.query<CompBatchRow>(
      `INSERT INTO comp_batches (id, organisation_id, event_id_or_slug, ticket_type_id, pool_id, requested, note, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'taking')
       ON CONFLICT (id) DO UPDATE SET state = 'taking', updated_at = now()
         WHERE comp_batches.organisation_id = excluded.organisation_id AND comp_batches.state IN ('taking', 'returned')
       RETURNING *`,
      [batch.id, batch.organisationId, batch.eventIdOrSlug, batch.ticketTypeId, batch.poolId, batch.requested, batch.note],
    );
    return rows[0];
  }

  async markIssued(client: PoolClient, id: string, failed: Array<{ email: string; reason: string }>): Promise<void> {
    await client.query("UPDATE comp_batches SET state = 'issued', failed = $2, updated_at = now() WHERE id = $1", [id, JSON.stringify(failed)]);
  }

  async markReturned(id: string, client: Queryable = this.pool): Promise<void> {
    await client.query("UPDATE comp_batches SET state = 'returned', updated_at = now() WHERE id = $1 AND state = 'taking'", [id]);
  }

  /** A batch's tickets in issue order. */
  async ticketsOf(organisationId: number, batchId: string): Promise<TicketRow[]> {
    const { rows } = await this.pool.query<TicketRow>('SELECT * FROM tickets WHERE comp_batch_id = $1 AND organisation_id = $2 ORDER BY id', [batchId, organisationId]);
    return rows;
  }

  /** Batches left `taking` for longer than `olderThanMs`, locked (skipping ones another process has) until the transaction ends. */
  async staleBatches(client: PoolClient, olderThanMs: number, limit: number): Promise<CompBatchRow[]> {
    const { rows } = await client.query<CompBatchRow>(
      `SELECT * FROM comp_batches WHERE state = 'taking' AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
        ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [olderThanMs, limit],
    );
    return rows;
  }

  async queueEmails(client: PoolClient, tickets: TicketRow[], event: { title: string; startsAt: string }): Promise<void> {
    if (tickets.length === 0) return;
    await client.query(
      `INSERT INTO comp_emails (ticket_id, organisation_id, event_title, event_starts_at)
       SELECT unnest($1::bigint[]), $2, $3, $4::timestamptz`,
      [tickets.map((ticket) => ticket.id), tickets[0]!.organisation_id, event.title, event.startsAt],
    );
  }

  /** Claims up to `limit` due emails for `leaseMs` (one attempt each); another sender sees them again only after the lease. */
  async claimDueEmails(limit: number, leaseMs: number): Promise<DueEmail[]> {
    const { rows } = await this.pool.query<DueEmail>(
      `UPDATE comp_emails SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE ticket_id IN (SELECT ticket_id FROM comp_emails WHERE state = 'pending' AND next_attempt_at <= now()
                             ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING ticket_id, attempts, event_title, event_starts_at`,
      [limit, leaseMs],
    );
    return rows;
  }

  async emailSent(ticketId: string): Promise<void> {
    await this.pool.query("UPDATE comp_emails SET state = 'sent', sent_at = now(), last_error = NULL WHERE ticket_id = $1", [ticketId]);
  }

  async emailSkipped(ticketId: string, why: string): Promise<void> {
    await this.pool.query("UPDATE comp_emails SET state = 'skipped', last_error = $2 WHERE ticket_id = $1", [ticketId, why]);
  }

  /** A failed attempt: due again after `retryInMs`, or given up (`failed`) when that is null. */
  async emailFailed(ticketId: string, error: string, retryInMs: number | null): Promise<void> {
    await this.pool.query(
      `UPDATE comp_emails SET last_error = $2,
              state = CASE WHEN $3::double precision IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN $3::double precision IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $3::double precision / 1000) END
        WHERE ticket_id = $1`,
      [ticketId, error.slice(0, 500), retryInMs],
    );
  }

  async ticket(id: string): Promise<TicketRow | undefined> {
    const { rows } = await this.pool.query<TicketRow>('SELECT * FROM tickets WHERE id = $1', [id]);
    return rows[0];
  }
}
