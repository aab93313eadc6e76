/** The organisation's audit log, newest first, 100 to a page. */
import { Router } from 'express';
import type { DashboardDeps } from '../deps';
import { requireMember } from '../signed-in';
import { render } from '../views';

const PAGE_SIZE = 100;

export function auditRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.get('/audit', async (req, res) => {
    const signedIn = requireMember(res, 'audit');
    const before = /^\d{1,15}$/.test(String(req.query.before ?? '')) ? Number(req.query.before) : undefined;
    const entries = await deps.auditLog.list(signedIn.member.organisationId, { before, limit: PAGE_SIZE });
    render(req, res, 'audit', { title: 'Audit log', entries, nextBefore: entries.length === PAGE_SIZE ? entries[entries.length - 1]!.id : undefined });
  });
  return router;
}
