/**
 * Signing in by password or by an emailed one-time link. Every answer to a
 * refused attempt is the same, whether the address is a member's or not,
 * and takes as long; wrong passwords in a row lock the member's sign-in
 * for a while (D322). Every attempt goes to the audit log.
 */
import type { Mailer } from '@partner-api/shared';
import type { Member, MemberRepository } from '../storage/member-repository';
import type { Audit, Origin } from './audit';
import { DashboardError } from './dashboard-error';
import { normaliseEmail } from './email-address';
import { signInLinkEmail, type MailContext } from './member-emails';
import { verifyPassword } from './passwords';
import { hashToken, newToken } from './tokens';

export interface LockoutPolicy {
  failures: number;
  minutes: number;
}

export const SIGN_IN_LINK_MINUTES = 15;

export const REFUSED = 'That email and password do not match a member. Check both, or ask for a sign-in link.';

export class SignIn {
  constructor(
    private readonly members: MemberRepository,
    private readonly audit: Audit,
    private readonly mailer: Mailer,
    private readonly mail: MailContext,
    private readonly lockout: LockoutPolicy,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async withPassword(emailInput: unknown, passwordInput: unknown, origin: Origin): Promise<Member> {
    const email = normaliseEmail(emailInput);
    const password = String(passwordInput ?? '');
    const member = await this.members.byEmail(email);
    const now = this.clock();
    if (member?.lockedUntil && member.lockedUntil > now) {
      await this.audit.signIn(origin, email, member, 'locked');
      throw lockedOut(member.lockedUntil);
    }
    if (member?.lockedUntil) await this.members.clearExpiredLock(member.id, now);
    const matches = await verifyPassword(member?.passwordHash ?? null, password);
    if (!member || !matches) {
      if (member) {
        const lockUntil = new Date(now.getTime() + this.lockout.minutes * 60_000);
        const { lockedUntil } = await this.members.recordFailure(member.id, this.lockout.failures, lockUntil);
        await this.audit.signIn(origin, email, member, lockedUntil ? 'locked_now' : 'wrong_password');
        if (lockedUntil) throw lockedOut(lockedUntil);
      } else {
        await this.audit.signIn(origin, email, undefined, 'unknown_email');
      }
      throw new DashboardError(401, REFUSED, 'email');
    }
    await this.members.resetFailures(member.id);
    await this.audit.signIn(origin, email, member, 'password');
    return member;
  }

  /** Emails a one-time link if the address is a member's; the page says the same either way. */
  async sendLink(emailInput: unknown, origin: Origin): Promise<void> {
    const email = normaliseEmail(emailInput);
    const member = await this.members.byEmail(email);
    await this.audit.signIn(origin, email, member, member ? 'link_sent' : 'link_unknown_email');
    if (!member) return;
    const token = newToken();
    await this.members.insertToken({ hash: hashToken(token), memberId: member.id, purpose: 'sign_in', expiresAt: new Date(this.clock().getTime() + SIGN_IN_LINK_MINUTES * 60_000) });
    await this.mailer.send(signInLinkEmail(this.mail, member, token, SIGN_IN_LINK_MINUTES));
  }

  /** Uses a link once. A link also ends a lockout: only the mailbox's owner has it. */
  async withLink(token: string, origin: Origin): Promise<Member> {
    const memberId = await this.members.consumeToken(hashToken(token), 'sign_in', this.clock());
    const member = memberId === undefined ? undefined : await this.members.byId(memberId);
    if (!member) throw new DashboardError(400, 'This sign-in link has been used or has expired. Ask for a new one.');
    await this.members.resetFailures(member.id);
    await this.members.markJoined(member.id);
    await this.audit.signIn(origin, member.email, member, 'link');
    return member;
  }
}

function lockedOut(until: Date): DashboardError {
  const minutes = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000));
  return new DashboardError(429, `Too many wrong passwords: sign-in for this member is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}. An emailed sign-in link still works.`, 'email');
}
