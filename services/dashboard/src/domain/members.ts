/**
 * An organisation's members: the first owner (from partnerctl), invitations
 * by email, accepting one with a password, role changes and removal. An
 * organisation always keeps at least one owner.
 */
import { inTransaction, type Mailer, type Pool, type PoolClient } from '@partner-api/shared';
import type { Member, MemberRepository } from '../storage/member-repository';
import type { OrganisationNames } from '../storage/organisation-names';
import type { SessionRepository } from '../storage/session-repository';
import type { Actor, Audit } from './audit';
import { DashboardError, forbidden, notFound } from './dashboard-error';
import { normaliseEmail } from './email-address';
import { invitationEmail, type MailContext } from './member-emails';
import { checkNewPassword, hashPassword } from './passwords';
import { canManageRole, isRole, type Role } from './roles';
import { hashToken, newToken } from './tokens';

export const INVITATION_HOURS = 72;

export class Members {
  constructor(
    private readonly pool: Pool,
    private readonly members: MemberRepository,
    private readonly sessions: SessionRepository,
    private readonly audit: Audit,
    private readonly organisations: OrganisationNames,
    private readonly mailer: Mailer,
    private readonly mail: MailContext,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  list(actor: Actor): Promise<Member[]> {
    return this.members.list(actor.member.organisationId);
  }

  /** The organisation's first owner (partnerctl): returns the invitation link instead of emailing it. */
  async addOwner(organisationId: number, emailInput: string, name: string): Promise<{ member: Member; link: string }> {
    if (!(await this.organisations.nameOf(organisationId))) throw new DashboardError(404, `There is no organisation ${organisationId}.`);
    const { member, token } = await this.create({ organisationId, email: normaliseEmail(emailInput), name: checkName(name), role: 'owner', invitedBy: null });
    return { member, link: `${this.mail.baseUrl}/invitations/${token}` };
  }

  async invite(actor: Actor, input: { email: unknown; name: unknown; role: unknown }): Promise<Member> {
    const role = input.role;
    if (!isRole(role)) throw new DashboardError(400, 'Choose a role.', 'role');
    if (!canManageRole(actor.member.role, role)) throw forbidden();
    const email = normaliseEmail(input.email);
    const name = checkName(input.name);
    const organisation = (await this.organisations.nameOf(actor.member.organisationId)) ?? 'your organisation';
    const { member, token } = await this.create({ organisationId: actor.member.organisationId, email, name, role, invitedBy: actor.member.id }, actor);
    await this.mailer.send(invitationEmail(this.mail, member, organisation, token, INVITATION_HOURS));
    return member;
  }

  private async create(input: { organisationId: number; email: string; name: string; role: Role; invitedBy: number | null }, actor?: Actor): Promise<{ member: Member; token: string }> {
    const token = newToken();
    try {
      const member = await inTransaction(this.pool, async (client) => {
        const created = await this.members.insert(input, client);
        await this.members.insertToken({ hash: hashToken(token), memberId: created.id, purpose: 'invitation', expiresAt: new Date(this.clock().getTime() + INVITATION_HOURS * 3_600_000) }, client);
        if (actor) await this.audit.record(actor, 'member.invited', `member ${created.id}`, { email: created.email, role: created.role }, client);
        return created;
      });
      return { member, token };
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new DashboardError(409, 'That email already belongs to a member (of this or another organisation).', 'email');
      throw error;
    }
  }

  /** Whether an invitation link is still good, for the page that asks for a password. */
  async invitationFor(token: string): Promise<Member | undefined> {
    const memberId = await this.members.peekToken(hashToken(token), 'invitation', this.clock());
    return memberId === undefined ? undefined : this.members.byId(memberId);
  }

  async acceptInvitation(token: string, password: string, confirmation: string): Promise<Member> {
    checkNewPassword(password, confirmation);
    const passwordHash = await hashPassword(password);
    const member = await inTransaction(this.pool, async (client) => {
      const memberId = await this.members.consumeToken(hashToken(token), 'invitation', this.clock(), client);
      if (memberId === undefined) return undefined;
      await this.members.setPassword(memberId, passwordHash, client);
      return this.members.byId(memberId, client);
    });
    if (!member) throw new DashboardError(400, 'This invitation has been used or has expired. Ask an owner or admin to invite you again.');
    return member;
  }

  async changeRole(actor: Actor, memberId: number, role: unknown): Promise<void> {
    if (!isRole(role)) throw new DashboardError(400, 'Choose a role.', 'role');
    await this.changeMember(actor, memberId, role, async (target, client) => {
      await this.members.setRole(target.id, role, client);
      await this.audit.record(actor, 'member.role_changed', `member ${target.id}`, { email: target.email, from: target.role, to: role }, client);
    });
  }

  async remove(actor: Actor, memberId: number): Promise<void> {
    await this.changeMember(actor, memberId, undefined, async (target, client) => {
      await this.members.remove(target.id, client);
      await this.audit.record(actor, 'member.removed', `member ${target.id}`, { email: target.email, role: target.role }, client);
    });
  }

  /** A change to another member of the actor's organisation, which may not leave it without an owner; the member's sessions end. */
  private async changeMember(actor: Actor, memberId: number, newRole: Role | undefined, change: (target: Member, client: PoolClient) => Promise<void>): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await this.members.lockOwners(actor.member.organisationId, client);
      const target = await this.members.inOrganisation(actor.member.organisationId, memberId, client);
      if (!target) throw notFound('member');
      if (!canManageRole(actor.member.role, target.role) || (newRole && !canManageRole(actor.member.role, newRole))) throw forbidden();
      const losesOwner = target.role === 'owner' && newRole !== 'owner';
      if (losesOwner && (await this.members.countOwners(actor.member.organisationId, client)) <= 1) {
        throw new DashboardError(409, 'An organisation keeps at least one owner: make another member owner first.');
      }
      await change(target, client);
      await this.sessions.endAllOf(target.id, client);
    });
  }
}

function checkName(value: unknown): string {
  const name = String(value ?? '').trim();
  if (name.length < 1 || name.length > 200) throw new DashboardError(400, 'Enter a name (at most 200 characters).', 'name');
  return name;
}
