/** The signed-in member of a request, kept in res.locals by the session middleware. */
import type { Response } from 'express';
import type { KeyMode, RequestContext } from '@partner-api/shared';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../domain/audit';
import { forbidden } from '../domain/dashboard-error';
import { can, type Permission } from '../domain/roles';
import type { Member } from '../storage/member-repository';

export interface SignedInLocals {
  member: Member;
  mode: KeyMode;
  tokenHash: Buffer;
  organisationName: string;
  /** The zone the pages show times in (D405). */
  timeZone: string;
  actor: Actor;
}

export const signedInOf = (res: Response): SignedInLocals | undefined => res.locals.signedIn as SignedInLocals | undefined;

/** The signed-in member, refused unless their role grants `permission`. */
export function requireMember(res: Response, permission?: Permission): SignedInLocals {
  const signedIn = signedInOf(res);
  if (!signedIn) throw new Error('requireMember used on a route without the sign-in guard');
  if (permission && !can(signedIn.member.role, permission)) throw forbidden();
  return signedIn;
}

/** Calls to the services act for the member's organisation, in the mode they are looking at. */
export const serviceContext = (signedIn: SignedInLocals): RequestContext => ({
  organisationId: signedIn.member.organisationId,
  mode: signedIn.mode,
  keyId: 0,
  requestId: `dash_${randomUUID()}`,
});
