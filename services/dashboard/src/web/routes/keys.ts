/**
 * API keys: list, create (the secret shown once), roll with the spec's
 * grace choices, revoke, allowlist and rate limit. Through the gateway's
 * gRPC service, as partnerctl does, so every gateway sees a change on the
 * key's next request.
 */
import { Router, type Request, type Response } from 'express';
import { SCOPES } from '@partner-api/shared';
import { DashboardError, notFound } from '../../domain/dashboard-error';
import type { DashboardDeps } from '../deps';
import { asRefusal } from '../refusals';
import { requireMember, type SignedInLocals } from '../signed-in';
import { render, renderRefusal, type PageOptions } from '../views';

/** The spec's dashboard choices for a roll's grace period. */
export const GRACE_CHOICES = [
  { hours: 0, label: 'Revoke now' },
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
] as const;

type Form = Record<string, string | string[] | undefined>;

/** Keys a page lists (D406). */
export const KEYS_PAGE = 25;
/** States of keys that no longer work: listed only when asked for (`?ended=shown`). */
const ENDED_STATES = new Set(['revoked', 'expired']);

/**
 * The keys a list page shows, newest first: those that still work unless
 * the ended ones are asked for, a page of them, and how many pages there are.
 */
export function keyListPage<Key extends { state: string }>(keys: Key[], query: Record<string, unknown>) {
  const showEnded = query.ended === 'shown';
  const newestFirst = [...keys].reverse();
  const listed = showEnded ? newestFirst : newestFirst.filter((key) => !ENDED_STATES.has(key.state));
  const pages = Math.max(1, Math.ceil(listed.length / KEYS_PAGE));
  const asked = typeof query.page === 'string' && /^[1-9][0-9]{0,5}$/.test(query.page) ? Number(query.page) : 1;
  const page = Math.min(asked, pages);
  return { keys: listed.slice((page - 1) * KEYS_PAGE, page * KEYS_PAGE), page, pages, showEnded, endedCount: keys.filter((key) => ENDED_STATES.has(key.state)).length };
}

const text = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? '')).trim();
const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function rateLimitFrom(value: string): number | null {
  if (value === '') return null;
  if (!/^\d{1,7}$/.test(value)) throw new DashboardError(400, 'The rate limit is a whole number of requests per minute, or empty for the default.', 'rate_limit');
  return Number(value);
}

export function keyRoutes(deps: DashboardDeps): Router {
  const router = Router();

  const keysOfMode = async (signedIn: SignedInLocals) => (await deps.keys.listKeys(signedIn.member.organisationId)).filter((key) => key.mode === signedIn.mode);

  async function keyOf(signedIn: SignedInLocals, id: string) {
    const key = /^\d{1,15}$/.test(id) ? (await deps.keys.listKeys(signedIn.member.organisationId)).find((candidate) => candidate.id === Number(id)) : undefined;
    if (!key) throw notFound('key');
    return key;
  }

  async function listPage(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    render(req, res, 'keys', { title: 'API keys', ...keyListPage(await keysOfMode(signedIn), req.query), scopes: SCOPES, ...options });
  }

  async function keyPage(req: Request, res: Response, signedIn: SignedInLocals, options: Omit<PageOptions, 'title'> = {}): Promise<void> {
    const key = await keyOf(signedIn, String(req.params.id));
    render(req, res, 'key', { title: key.name, key, graceChoices: GRACE_CHOICES, ...options });
  }

  router.get('/keys', async (req, res) => listPage(req, res, requireMember(res, 'keys')));

  router.post('/keys', async (req, res) => {
    const signedIn = requireMember(res, 'keys');
    const form = req.body as Form;
    try {
      const name = text(form.name);
      const rateLimit = rateLimitFrom(text(form.rate_limit));
      const allowlist = text(form.ip_allowlist);
      // The gateway checks the name, scopes, allowlist and limit before it writes: a refused key leaves nothing behind.
      const issued = await deps.keys
        .issueKey({ organisationId: signedIn.member.organisationId, name, mode: signedIn.mode, scopes: list(form.scopes), ipAllowlist: allowlist, rateLimit })
        .catch((error: unknown) => {
          throw asRefusal(error);
        });
      await deps.audit.record(signedIn.actor, 'key.created', `key ${issued.id}`, { name, mode: issued.mode, scopes: issued.scopes, rate_limit: rateLimit, ip_allowlist: allowlist });
      await listPage(req, res, signedIn, { status: 201, issued: { heading: `Your new key "${name}"`, secret: issued.secret } });
    } catch (error) {
      if (!(error instanceof DashboardError)) throw error;
      await listPage(req, res, signedIn, { status: error.status, error: error.message, errorField: error.field });
    }
  });

  router.get('/keys/:id', async (req, res) => keyPage(req, res, requireMember(res, 'keys')));

  router.post('/keys/:id/roll', async (req, res) => {
    const signedIn = requireMember(res, 'keys');
    const key = await keyOf(signedIn, String(req.params.id));
    const form = req.body as Form;
    const grace = GRACE_CHOICES.find((choice) => String(choice.hours) === text(form.grace_hours));
    if (!grace || text(form.confirm) !== 'yes') {
      return keyPage(req, res, signedIn, { status: 400, error: 'Choose how long the old key keeps working, and confirm.', errorField: 'grace_hours' });
    }
    let rolled;
    try {
      rolled = await deps.keys.rollKey(signedIn.member.organisationId, key.id, grace.hours).catch((error: unknown) => {
        throw asRefusal(error);
      });
    } catch (error) {
      return renderRefusal(req, res, error, 'key', { title: key.name, key, graceChoices: GRACE_CHOICES });
    }
    await deps.audit.record(signedIn.actor, 'key.rolled', `key ${key.id}`, { new_key: rolled.id, grace_hours: grace.hours });
    await listPage(req, res, signedIn, {
      issued: {
        heading: `The new secret of "${key.name}"`,
        secret: rolled.secret,
        oldKeyUntil: grace.hours > 0 ? rolled.oldKeyExpiresAt.toISOString() : undefined,
        oldKeyRevoked: grace.hours === 0,
      },
    });
  });

  router.post('/keys/:id/revoke', async (req, res) => {
    const signedIn = requireMember(res, 'keys');
    const key = await keyOf(signedIn, String(req.params.id));
    if (text((req.body as Form).confirm) !== 'yes') return keyPage(req, res, signedIn, { status: 400, error: 'Tick the box to confirm the revocation.' });
    await deps.keys.revokeKey(signedIn.member.organisationId, key.id);
    await deps.audit.record(signedIn.actor, 'key.revoked', `key ${key.id}`, { name: key.name });
    res.redirect(303, '/keys?done=key_revoked');
  });

  router.post('/keys/:id/allowlist', async (req, res) => {
    const signedIn = requireMember(res, 'keys');
    const key = await keyOf(signedIn, String(req.params.id));
    try {
      const entries = await deps.keys.setAllowlist(signedIn.member.organisationId, key.id, text((req.body as Form).ip_allowlist)).catch((error: unknown) => {
        throw asRefusal(error);
      });
      await deps.audit.record(signedIn.actor, 'key.allowlist_changed', `key ${key.id}`, { from: key.ip_allowlist, to: entries });
    } catch (error) {
      return renderRefusal(req, res, error, 'key', { title: key.name, key, graceChoices: GRACE_CHOICES });
    }
    res.redirect(303, `/keys/${key.id}?done=allowlist_saved`);
  });

  router.post('/keys/:id/rate-limit', async (req, res) => {
    const signedIn = requireMember(res, 'keys');
    const key = await keyOf(signedIn, String(req.params.id));
    try {
      const limit = rateLimitFrom(text((req.body as Form).rate_limit));
      await deps.keys.setRateLimit(signedIn.member.organisationId, key.id, limit).catch((error: unknown) => {
        throw asRefusal(error);
      });
      await deps.audit.record(signedIn.actor, 'key.rate_limit_changed', `key ${key.id}`, { from: key.rate_limit, to: limit });
    } catch (error) {
      return renderRefusal(req, res, error, 'key', { title: key.name, key, graceChoices: GRACE_CHOICES });
    }
    res.redirect(303, `/keys/${key.id}?done=rate_limit_saved`);
  });

  return router;
}
