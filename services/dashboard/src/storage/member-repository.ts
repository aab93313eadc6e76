/** Members and their invitation / sign-in tokens in the dashboard's schema. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { Role } from '../domain/roles';

export interface Member {
  id: number;
  organisationId: number;
  email: string;
  name: string;
  role: Role;
  passwordHash: string | null;
  failedSignIns: number;
  lockedUntil: Date | null;
  createdAt: Date;
  joinedAt: Date | null;
}

interface MemberRow {
  id: string;
  organisation_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  failed_sign_ins: number;
  locked_until: Date | null;
  created_at: Date;
  joined_at: Date | null;
}

const COLUMNS = 'id, organisation_id, email, name, role, password_hash, failed_sign_ins, locked_until, created_at, joined_at';

const toMember = (row: MemberRow): Member => ({
  id: Number(row.id),
  organisationId: Number(row.organisation_id),
  email: row.email,
  name: row.name,
  role: row.role,
  passwordHash: row.password_hash,
  failedSignIns: row.failed_sign_ins,
  lockedUntil: row.locked_until,
  createdAt: row.created_at,
  joinedAt: row.joined_at,
});

export type TokenPurpose = 'invitation' | 'sign_in';

type Db = Pool | PoolClient;

export class MemberRepository {
  constructor(private readonly pool: Pool) {}

  async byEmail(email: string): Promise<Member | undefined> {
    const { rows } = await this.pool.query<MemberRow>(`SELECT ${COLUMNS} FROM members WHERE email = $1 AND removed_at IS NULL`, [email]);
    return rows[0] && toMember(rows[0]);
  }

  async byId(id: number, db: Db = this.pool): Promise<Member | undefined> {
    const { rows } = await db.query<MemberRow>(`SELECT ${COLUMNS} FROM members WHERE id = $1 AND removed_at IS NULL`, [id]);
    return rows[0] && toMember(rows[0]);
  }

  /** One member of one organisation: another organisation's member id finds nothing. */
  async inOrganisation(organisationId: number, id: number, db: Db = this.pool): Promise<Member | undefined> {
    const { rows } = await db.query<MemberRow>(`SELECT ${COLUMNS} FROM members WHERE id = $1 AND organisation_id = $2 AND removed_at IS NULL`, [id, organisationId]);
    return rows[0] && toMember(rows[0]);
  }

  async list(organisationId: number): Promise<Member[]> {
    const { rows } = await this.pool.query<MemberRow>(`SELECT ${COLUMNS} FROM members WHERE organisation_id = $1 AND removed_at IS NULL ORDER BY id`, [organisationId]);
    return rows.map(toMember);
  }

  /** The addresses told when something needs an owner's or admin's attention. */
  async withRoles(organisationId: number, roles: readonly Role[]): Promise<Member[]> {
    const { rows } = await this.pool.query<MemberRow>(
      `SELECT ${COLUMNS} FROM members WHERE organisation_id = $1 AND role = ANY($2) AND removed_at IS NULL ORDER BY id`,
      [organisationId, roles],
    );
    return rows.map(toMember);
  }

  async insert(member: { organisationId: number; email: string; name: string; role: Role; invitedBy: number | null }, db: Db = this.pool): Promise<Member> {
    const { rows } = await db.query<MemberRow>(
      `INSERT INTO members (organisation_id, email, name, role, invited_by) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
      [member.organisationId, member.email, member.name, member.role, member.invitedBy],
    );
    return toMember(rows[0]!);
  }

  async countOwners(organisationId: number, db: Db = this.pool): Promise<number> {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM members WHERE organisation_id = $1 AND role = 'owner' AND removed_at IS NULL`, [organisationId]);
    return rows[0]!.n;
  }

  /** Locks the organisation's owners, so two changes cannot both remove the last one. */
  async lockOwners(organisationId: number, db: PoolClient): Promise<void> {
    await db.query(`SELECT id FROM members WHERE organisation_id = $1 AND role = 'owner' AND removed_at IS NULL FOR UPDATE`, [organisationId]);
  }

  async setRole(id: number, role: Role, db: Db = this.pool): Promise<void> {
    await db.query('UPDATE members SET role = $2 WHERE id = $1', [id, role]);
  }

  async remove(id: number, db: Db = this.pool): Promise<void> {
    await db.query('UPDATE members SET removed_at = now() WHERE id = $1', [id]);
  }

  async setPassword(id: number, passwordHash: string, db: Db = this.pool): Promise<void> {
    await db.query('UPDATE members SET password_hash = $2, joined_at = coalesce(joined_at, now()), failed_sign_ins = 0, locked_until = NULL WHERE id = $1', [id, passwordHash]);
  }

  async markJoined(id: number, db: Db = this.pool): Promise<void> {
    await db.query('UPDATE members SET joined_at = coalesce(joined_at, now()) WHERE id = $1', [id]);
  }

  /** Counts a wrong password; the count reaching `limit` locks sign-in until `lockUntil`. Returns the new count. */
  async recordFailure(id: number, limit: number, lockUntil: Date): Promise<{ failures: number; lockedUntil: Date | null }> {
    const { rows } = await this.pool.query<{ failed_sign_ins: number; locked_until: Date | null }>(
      `UPDATE members SET failed_sign_ins = failed_sign_ins + 1,
              locked_until = CASE WHEN failed_sign_ins + 1 >= $2 THEN $3 ELSE locked_until END
        WHERE id = $1 RETURNING failed_sign_ins, locked_until`,
      [id, limit, lockUntil],
    );
    return { failures: rows[0]?.failed_sign_ins ?? 0, lockedUntil: rows[0]?.locked_until ?? null };
  }

  /** A lock that has run out starts a fresh count. */
  async clearExpiredLock(id: number, now: Date): Promise<void> {
    await this.pool.query('UPDATE members SET failed_sign_ins = 0, locked_until = NULL WHERE id = $1 AND locked_until <= $2', [id, now]);
  }

  async resetFailures(id: number): Promise<void> {
    await this.pool.query('UPDATE members SET failed_sign_ins = 0, locked_until = NULL WHERE id = $1', [id]);
  }

  async insertToken(token: { hash: Buffer; memberId: number; purpose: TokenPurpose; expiresAt: Date }, db: Db = this.pool): Promise<void> {
    await db.query('INSERT INTO member_tokens (token_hash, member_id, purpose, expires_at) VALUES ($1, $2, $3, $4)', [token.hash, token.memberId, token.purpose, token.expiresAt]);
  }

  /** Uses a token once: the member it belongs to, or nothing if it is unknown, used, expired or of another purpose. */
  async consumeToken(hash: Buffer, purpose: TokenPurpose, now: Date, db: Db = this.pool): Promise<number | undefined> {
    const { rows } = await db.query<{ member_id: string }>(
      `UPDATE member_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3 RETURNING member_id`,
      [hash, purpose, now],
    );
    return rows[0] ? Number(rows[0].member_id) : undefined;
  }

  /** Whether a token would be accepted, without using it (the page that asks for a new password). */
  async peekToken(hash: Buffer, purpose: TokenPurpose, now: Date): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ member_id: string }>(
      'SELECT member_id FROM member_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3',
      [hash, purpose, now],
    );
    return rows[0] ? Number(rows[0].member_id) : undefined;
  }
}
