/**
 * Signing in and out, one-time links and invitations: the pages anyone may
 * open. Password and link requests are limited per caller address on top
 * of the per-member lockout (D322).
 */
import { Router, type Request, type Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { homeOf } from '../../domain/roles';
import { MIN_PASSWORD_LENGTH } from '../../domain/passwords';
import type { Member } from '../../storage/member-repository';
import type { DashboardDeps } from '../deps';
import { originOf } from '../request-origin';
import { signedInOf } from '../signed-in';
import { render, renderRefusal } from '../views';

export interface SignInLimits {
  attemptsPerWindow: number;
  windowSeconds: number;
  /** Where the counts are kept: shared by every dashboard process (AddressLimitCounts). */
  counts: Store;
}

type Form = Record<string, string | undefined>;

export function signInRoutes(deps: DashboardDeps, limits: SignInLimits): Router {
  const router = Router();
  const attempts = rateLimit({
    windowMs: limits.windowSeconds * 1000,
    limit: limits.attemptsPerWindow,
    store: limits.counts,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (req, res) =>
      render(req, res, 'sign-in', { title: 'Sign in', status: 429, error: 'Too many sign-in attempts from your address. Wait a few minutes and try again.' }),
  });

  /** A fresh session for the member; any session the browser brought ends (no fixation). */
  async function signInAs(req: Request, res: Response, member: Member): Promise<void> {
    const previous = signedInOf(res);
    if (previous) await deps.sessions.end(previous.tokenHash);
    deps.cookies.setSession(res, await deps.sessions.start(member, originOf(req)));
    res.redirect(303, homeOf(member.role));
  }

  router.get('/sign-in', (req, res) => {
    const signedIn = signedInOf(res);
    if (signedIn) return void res.redirect(303, homeOf(signedIn.member.role));
    render(req, res, 'sign-in', { title: 'Sign in' });
  });

  router.post('/sign-in', attempts, async (req, res) => {
    const form = req.body as Form;
    let member: Member;
    try {
      member = await deps.signIn.withPassword(form.email, form.password, originOf(req));
    } catch (error) {
      return renderRefusal(req, res, error, 'sign-in', { title: 'Sign in', email: form.email });
    }
    await signInAs(req, res, member);
  });

  router.post('/sign-in/link', attempts, async (req, res) => {
    try {
      await deps.signIn.sendLink((req.body as Form).email, originOf(req));
    } catch (error) {
      return renderRefusal(req, res, error, 'sign-in', { title: 'Sign in' });
    }
    res.redirect(303, '/sign-in?done=link_sent');
  });

  // Opening the link only shows a button: mail scanners that fetch links must not use it up.
  router.get('/sign-in/link/:token', (req, res) => {
    render(req, res, 'confirm-link', { title: 'Sign in', token: String(req.params.token) });
  });

  router.post('/sign-in/link/:token', attempts, async (req, res) => {
    let member: Member;
    try {
      member = await deps.signIn.withLink(String(req.params.token), originOf(req));
    } catch (error) {
      return renderRefusal(req, res, error, 'message', { title: 'Link not valid', message: 'This sign-in link has been used or has expired.', link: { href: '/sign-in', label: 'Ask for a new link' } });
    }
    await signInAs(req, res, member);
  });

  router.get('/invitations/:token', async (req, res) => {
    const token = String(req.params.token);
    const invitee = await deps.members.invitationFor(token);
    if (!invitee) {
      return render(req, res, 'message', { title: 'Invitation not valid', status: 404, message: 'This invitation has been used or has expired. Ask an owner or admin to invite you again.', link: { href: '/sign-in', label: 'Sign in' } });
    }
    render(req, res, 'invitation', { title: 'Accept invitation', invitee, token, minLength: MIN_PASSWORD_LENGTH });
  });

  router.post('/invitations/:token', attempts, async (req, res) => {
    const token = String(req.params.token);
    const form = req.body as Form;
    const invitee = await deps.members.invitationFor(token);
    if (!invitee) return render(req, res, 'message', { title: 'Invitation not valid', status: 404, message: 'This invitation has been used or has expired. Ask an owner or admin to invite you again.' });
    let member: Member;
    try {
      member = await deps.members.acceptInvitation(token, form.password ?? '', form.password_confirmation ?? '');
    } catch (error) {
      return renderRefusal(req, res, error, 'invitation', { title: 'Accept invitation', invitee, token, minLength: MIN_PASSWORD_LENGTH });
    }
    await deps.audit.signIn(originOf(req), member.email, member, 'invitation_accepted');
    await signInAs(req, res, member);
  });

  router.post('/sign-out', async (_req, res) => {
    const signedIn = signedInOf(res);
    if (signedIn) {
      await deps.sessions.end(signedIn.tokenHash);
      await deps.audit.record(signedIn.actor, 'sign_out', null);
    }
    deps.cookies.clearSession(res);
    res.redirect(303, '/sign-in?done=signed_out');
  });

  return router;
}
