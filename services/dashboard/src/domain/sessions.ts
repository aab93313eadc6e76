/**
 * Signed-in sessions. A new token at every sign-in (a token set before it
 * is never promoted: no session fixation), an idle and an absolute limit,
 * and only the token's hash in the database.
 */
import type { KeyMode } from '@partner-api/shared';
import type { Member, MemberRepository } from '../storage/member-repository';
import type { SessionRepository } from '../storage/session-repository';
import type { Origin } from './audit';
import { hashToken, newToken } from './tokens';

export interface SessionLimits {
  idleMinutes: number;
  maxHours: number;
}

export interface SignedIn {
  member: Member;
  mode: KeyMode;
  tokenHash: Buffer;
}

/** last_seen_at is written at most this often, not on every page. */
const TOUCH_EVERY_MS = 60_000;

export class Sessions {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly members: MemberRepository,
    private readonly limits: SessionLimits,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Starts a session and returns the token for the cookie. */
  async start(member: Member, origin: Origin): Promise<string> {
    const token = newToken();
    const expiresAt = new Date(this.clock().getTime() + this.limits.maxHours * 3_600_000);
    await this.sessions.insert({ hash: hashToken(token), memberId: member.id, ip: origin.ip, userAgent: origin.userAgent, expiresAt });
    return token;
  }

  /** The member behind a cookie's token, or nothing if it is unknown, ended, idle too long or past its limit. */
  async resolve(token: string | undefined): Promise<SignedIn | undefined> {
    if (!token || token.length > 100) return undefined;
    const hash = hashToken(token);
    const session = await this.sessions.find(hash);
    if (!session) return undefined;
    const now = this.clock();
    if (session.expiresAt <= now || now.getTime() - session.lastSeenAt.getTime() > this.limits.idleMinutes * 60_000) {
      await this.sessions.end(hash);
      return undefined;
    }
    const member = await this.members.byId(session.memberId);
    if (!member) return undefined;
    if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) await this.sessions.touch(hash, now);
    return { member, mode: session.mode, tokenHash: hash };
  }

  end(tokenHash: Buffer): Promise<void> {
    return this.sessions.end(tokenHash);
  }

  setMode(tokenHash: Buffer, mode: KeyMode): Promise<void> {
    return this.sessions.setMode(tokenHash, mode);
  }
}
