/** Signed-in sessions: looked up by the hash of the cookie's token. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { KeyMode } from '@partner-api/shared';

export interface StoredSession {
  memberId: number;
  mode: KeyMode;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

interface SessionRow {
  member_id: string;
  mode: KeyMode;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export class SessionRepository {
  constructor(private readonly pool: Pool) {}

  async insert(session: { hash: Buffer; memberId: number; ip: string | null; userAgent: string | null; expiresAt: Date }): Promise<void> {
    await this.pool.query('INSERT INTO sessions (token_hash, member_id, ip, user_agent, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      session.hash,
      session.memberId,
      session.ip,
      session.userAgent?.slice(0, 500) ?? null,
      session.expiresAt,
    ]);
  }

  async find(hash: Buffer): Promise<StoredSession | undefined> {
    const { rows } = await this.pool.query<SessionRow>('SELECT member_id, mode, created_at, last_seen_at, expires_at FROM sessions WHERE token_hash = $1 AND ended_at IS NULL', [hash]);
    const row = rows[0];
    return row && { memberId: Number(row.member_id), mode: row.mode, createdAt: row.created_at, lastSeenAt: row.last_seen_at, expiresAt: row.expires_at };
  }

  async touch(hash: Buffer, now: Date): Promise<void> {
    await this.pool.query('UPDATE sessions SET last_seen_at = $2 WHERE token_hash = $1', [hash, now]);
  }

  async setMode(hash: Buffer, mode: KeyMode): Promise<void> {
    await this.pool.query('UPDATE sessions SET mode = $2 WHERE token_hash = $1', [hash, mode]);
  }

  async end(hash: Buffer): Promise<void> {
    await this.pool.query('UPDATE sessions SET ended_at = now() WHERE token_hash = $1 AND ended_at IS NULL', [hash]);
  }

  /** Ends every session of a member (removed, role changed, password set). */
  async endAllOf(memberId: number, db: Pool | PoolClient = this.pool): Promise<void> {
    await db.query('UPDATE sessions SET ended_at = now() WHERE member_id = $1 AND ended_at IS NULL', [memberId]);
  }
}
