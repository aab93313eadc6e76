/**
 * Disable notices in the webhooks schema: written in the transaction that
 * disables an endpoint, claimed with a lease by whoever emails them, and
 * marked sent (D307, D308). Not scoped to an organisation: the claimer
 * serves every one.
 */
import type { Pool, PoolClient } from '@partner-api/shared';

export interface DisableNoticeRow {
  id: string;
  organisation_id: string;
  endpoint_id: string;
  endpoint_url: string;
  mode: string;
  reason: string;
  disabled_at: Date;
  claims: number;
  claimed_until: Date | null;
  sent_at: Date | null;
  created_at: Date;
}

export class DisableNoticeRepository {
  constructor(private readonly pool: Pool) {}

  /** The notice of an endpoint the caller's transaction has just disabled, as the endpoint row now reads. */
  async record(client: PoolClient, endpointId: string): Promise<void> {
    await client.query(
      `INSERT INTO disable_notices (organisation_id, endpoint_id, endpoint_url, mode, reason, disabled_at)
       SELECT organisation_id, id, url, mode, disabled_reason, disabled_at FROM endpoints WHERE id = $1 AND NOT enabled`,
      [endpointId],
    );
  }

  /** Unsent notices whose lease is free (never claimed, or the claimer's ran out), oldest first, now this caller's until the lease ends. */
  async claim(limit: number, leaseSeconds: number): Promise<DisableNoticeRow[]> {
    const { rows } = await this.pool.query<DisableNoticeRow>(
      `WITH free AS (
         SELECT id FROM disable_notices
          WHERE sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE disable_notices n SET claimed_until = now() + $2 * interval '1 second', claims = n.claims + 1
         FROM free WHERE n.id = free.id
       RETURNING n.*`,
      [limit, leaseSeconds],
    );
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Marks a notice sent (once: completing it again changes nothing); undefined when there is no such notice. */
  async complete(id: bigint): Promise<DisableNoticeRow | undefined> {
    const { rows } = await this.pool.query<DisableNoticeRow>(
      `UPDATE disable_notices SET sent_at = COALESCE(sent_at, now()), claimed_until = NULL WHERE id = $1 RETURNING *`,
      [id.toString()],
    );
    return rows[0];
  }
}
