/** The audit log: append-only, read newest first per organisation. */
import type { Pool, PoolClient } from '@partner-api/shared';

export interface AuditEntry {
  organisationId: number | null;
  memberId: number | null;
  /** Who acted, as shown: the member's email, or the address typed into a failed sign-in. */
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditRecord extends AuditEntry {
  id: number;
  createdAt: Date;
}

interface AuditRow {
  id: string;
  organisation_id: string | null;
  member_id: string | null;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
}

export class AuditRepository {
  constructor(private readonly pool: Pool) {}

  async append(entry: AuditEntry, db: Pool | PoolClient = this.pool): Promise<void> {
    await db.query(
      'INSERT INTO audit_events (organisation_id, member_id, actor, action, target, detail, ip, user_agent) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [entry.organisationId, entry.memberId, entry.actor, entry.action, entry.target ?? null, JSON.stringify(entry.detail ?? {}), entry.ip, entry.userAgent?.slice(0, 500) ?? null],
    );
  }

  /** Newest first; `before` pages back from an id. */
  async list(organisationId: number, options: { before?: number; limit: number; action?: string }): Promise<AuditRecord[]> {
    const { rows } = await this.pool.query<AuditRow>(
      `SELECT id, organisation_id, member_id, actor, action, target, detail, ip, user_agent, created_at FROM audit_events
        WHERE organisation_id = $1 AND ($2::bigint IS NULL OR id < $2) AND ($3::text IS NULL OR action = $3)
        ORDER BY id DESC LIMIT $4`,
      [organisationId, options.before ?? null, options.action ?? null, options.limit],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      organisationId: row.organisation_id === null ? null : Number(row.organisation_id),
      memberId: row.member_id === null ? null : Number(row.member_id),
      actor: row.actor,
      action: row.action,
      target: row.target,
      detail: row.detail,
      ip: row.ip,
      userAgent: row.user_agent,
      createdAt: row.created_at,
    }));
  }
}
