/** Webhook endpoints in the webhooks schema; every read and write is scoped to one organisation. */
import type { Pool, PoolClient } from '@partner-api/shared';

export interface EndpointRow {
  id: string;
  organisation_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  mode: 'live' | 'test';
  enabled: boolean;
  consecutive_failures: number;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewEndpoint {
  organisationId: number;
  url: string;
  description: string | null;
  eventTypes: string[];
  mode: 'live' | 'test';
  secret: string;
}

export interface EndpointChanges {
  url?: string | undefined;
  /** null clears it. */
  description?: string | null | undefined;
  eventTypes?: string[] | undefined;
  /** true: enabled again with a clean slate; false: paused. */
  enabled?: boolean | undefined;
}

/** Why an endpoint stopped receiving: paused through the API, or disabled by the health rules. */
export const PAUSED_REASON = 'paused';

type Queryable = Pool | PoolClient;

export class EndpointRepository {
  constructor(private readonly pool: Pool) {}

  /** Oldest first: the list is one page. `modes` limits it to the modes the caller may see. */
  async list(organisationId: number, modes: readonly string[]): Promise<EndpointRow[]> {
    const { rows } = await this.pool.query<EndpointRow>('SELECT * FROM endpoints WHERE organisation_id = $1 AND mode = ANY($2::text[]) ORDER BY id', [organisationId, modes]);
    return rows;
  }

  async count(organisationId: number, client: Queryable = this.pool): Promise<number> {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM endpoints WHERE organisation_id = $1', [organisationId]);
    return Number(rows[0]!.count);
  }

  async find(organisationId: number, id: bigint, client: Queryable = this.pool): Promise<EndpointRow | undefined> {
    const { rows } = await client.query<EndpointRow>('SELECT * FROM endpoints WHERE id = $1 AND organisation_id = $2', [id.toString(), organisationId]);
    return rows[0];
  }

  /** Serialises endpoint creation per organisation until the transaction ends, so the cap holds under concurrency. */
  async lockOrganisation(client: PoolClient, organisationId: number): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('webhook-endpoints:' || $1, 0))", [organisationId]);
  }

  async insert(client: Queryable, endpoint: NewEndpoint): Promise<EndpointRow> {
    const { rows } = await client.query<EndpointRow>(
      `INSERT INTO endpoints (organisation_id, url, description, event_types, mode, secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [endpoint.organisationId, endpoint.url, endpoint.description, endpoint.eventTypes, endpoint.mode, endpoint.secret],
    );
    return rows[0]!;
  }

  /**
   * Applies the changes given. Enabling clears the failure history and the
   * disabled fields; pausing records when and why. Either way the row's
   * other fields stay as they are.
   */
  async update(client: PoolClient, organisationId: number, id: bigint, changes: EndpointChanges): Promise<EndpointRow | undefined> {
    const { rows } = await client.query<EndpointRow>(
      `UPDATE endpoints SET
         url = COALESCE($3, url),
         description = CASE WHEN $4::boolean THEN $5 ELSE description END,
         event_types = COALESCE($6::text[], event_types),
         enabled = COALESCE($7, enabled),
         consecutive_failures = CASE WHEN $7 IS TRUE THEN 0 ELSE consecutive_failures END,
         failing_since = CASE WHEN $7 IS TRUE THEN NULL ELSE failing_since END,
         disabled_at = CASE WHEN $7 IS TRUE THEN NULL
                            WHEN $7 IS FALSE AND enabled THEN now()
                            ELSE disabled_at END,
         disabled_reason = CASE WHEN $7 IS TRUE THEN NULL
                                WHEN $7 IS FALSE AND enabled THEN $8
                                ELSE disabled_reason END,
         updated_at = now()
       WHERE id = $1 AND organisation_id = $2
       RETURNING *`,
      [
        id.toString(),
        organisationId,
        changes.url ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.eventTypes ?? null,
        changes.enabled ?? null,
        PAUSED_REASON,
      ],
    );
    return rows[0];
  }

  async delete(organisationId: number, id: bigint): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM endpoints WHERE id = $1 AND organisation_id = $2', [id.toString(), organisationId]);
    return (rowCount ?? 0) > 0;
  }

  /** A new secret; the one it replaces keeps signing until `overlapUntil`. */
  async rotateSecret(organisationId: number, id: bigint, secret: string, overlapUntil: Date): Promise<EndpointRow | undefined> {
    const { rows } = await this.pool.query<EndpointRow>(
      `UPDATE endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $4, updated_at = now()
       WHERE id = $1 AND organisation_id = $2 RETURNING *`,
      [id.toString(), organisationId, overlapUntil, secret],
    );
    return rows[0];
  }

  /**
   * Locks the endpoint row for a failure being recorded. Taken before any
   * delivery row is touched: the failures of one endpoint then queue here,
   * so one that disables the endpoint and cancels its deliveries never
   * waits for a delivery row held by another failure that waits for it.
   * Undefined when the endpoint is gone.
   */
  async lockForFailure(client: PoolClient, id: string): Promise<{ enabled: boolean } | undefined> {
    const { rows } = await client.query<{ enabled: boolean }>('SELECT enabled FROM endpoints WHERE id = $1 FOR UPDATE', [id]);
    return rows[0];
  }

  /** A delivery failed: one more in the run (counted atomically across senders); the row after the change. */
  async recordFailure(client: PoolClient, id: string): Promise<EndpointRow | undefined> {
    const { rows } = await client.query<EndpointRow>(
      `UPDATE endpoints SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, now()),
              last_failure_at = now(), updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id],
    );
    return rows[0];
  }

  /** Stops deliveries by the health rules; false if it was already off. */
  async disable(client: PoolClient, id: string, reason: string): Promise<boolean> {
    const { rowCount } = await client.query(
      'UPDATE endpoints SET enabled = false, disabled_at = now(), disabled_reason = $2, updated_at = now() WHERE id = $1 AND enabled',
      [id, reason],
    );
    return (rowCount ?? 0) > 0;
  }
}
