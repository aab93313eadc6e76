/** Writes the audit log: every dashboard action and sign-in attempt, with who, what, when and from where. */
import type { Pool, PoolClient } from '@partner-api/shared';
import type { AuditRepository } from '../storage/audit-repository';
import type { Member } from '../storage/member-repository';

/** Where a request came from: recorded with everything it does. */
export interface Origin {
  ip: string | null;
  userAgent: string | null;
}

export interface Actor extends Origin {
  member: Member;
}

export class Audit {
  constructor(private readonly log: AuditRepository) {}

  /** An action by a signed-in member (inside the caller's transaction when given, so it is kept only if the action is). */
  record(actor: Actor, action: string, target: string | null, detail: Record<string, unknown> = {}, db?: Pool | PoolClient): Promise<void> {
    return this.log.append(
      { organisationId: actor.member.organisationId, memberId: actor.member.id, actor: actor.member.email, action, target, detail, ip: actor.ip, userAgent: actor.userAgent },
      db,
    );
  }

  /** A sign-in attempt, signed in or refused; the organisation is known only when the address is a member's. */
  signIn(origin: Origin, email: string, member: Member | undefined, outcome: string): Promise<void> {
    return this.log.append({
      organisationId: member?.organisationId ?? null,
      memberId: member?.id ?? null,
      actor: email.slice(0, 254),
      action: 'sign_in',
      target: null,
      detail: { outcome },
      ip: origin.ip,
      userAgent: origin.userAgent,
    });
  }
}
