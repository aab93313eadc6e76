/** Members of the organisation: list, invite, change role, remove (owners and admins, D320). */
import { Router, type Request, type Response } from 'express';
import { DashboardError } from '../../domain/dashboard-error';
import { canManageRole, ROLE_LABELS, ROLES } from '../../domain/roles';
import type { DashboardDeps } from '../deps';
import { requireMember, type SignedInLocals } from '../signed-in';
import { render, type PageOptions } from '../views';

type Form = Record<string, string | undefined>;

const memberId = (value: unknown): number => (/^\d{1,15}$/.test(String(value)) ? Number(value) : 0);

export function memberRoutes(deps: DashboardDeps): Router {
  const router = Router();

  async function page(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const role = signedIn.member.role;
    const members = (await deps.members.list(signedIn.actor)).map((member) => ({ ...member, manageable: member.id !== signedIn.member.id && canManageRole(role, member.role) }));
    render(req, res, 'members', {
      title: 'Members',
      members,
      assignable: ROLES.filter((candidate) => canManageRole(role, candidate)),
      roleLabels: ROLE_LABELS,
      ...options,
    });
  }

  router.get('/members', async (req, res) => page(req, res, requireMember(res, 'members')));

  router.post('/members', async (req, res) => {
    const signedIn = requireMember(res, 'members');
    const form = req.body as Form;
    try {
      await deps.members.invite(signedIn.actor, { email: form.email, name: form.name, role: form.role });
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      return page(req, res, signedIn, { status: error.status, error: error.message, errorField: error.field });
    }
    res.redirect(303, '/members?done=member_invited');
  });

  router.post('/members/:id/role', async (req, res) => {
    const signedIn = requireMember(res, 'members');
    await deps.members.changeRole(signedIn.actor, memberId(req.params.id), (req.body as Form).role);
    res.redirect(303, '/members?done=role_changed');
  });

  router.post('/members/:id/remove', async (req, res) => {
    const signedIn = requireMember(res, 'members');
    await deps.members.remove(signedIn.actor, memberId(req.params.id));
    res.redirect(303, '/members?done=member_removed');
  });

  return router;
}
