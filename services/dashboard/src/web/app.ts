/**
 * The dashboard's HTTP app: security headers as on the hosted checkout
 * (CSP with no scripts, never framed, no-store), the session cookie,
 * CSRF tokens on every form (csrf-csrf, bound to the session), the
 * sign-in guard, the pages, and one error page for every refusal.
 */
import cookieParser from 'cookie-parser';
import { doubleCsrf } from 'csrf-csrf';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, pageSecurityHeaders, type Logger } from '@partner-api/shared';
import { DashboardError } from '../domain/dashboard-error';
import { homeOf } from '../domain/roles';
import type { DashboardDeps } from './deps';
import { originOf } from './request-origin';
import { auditRoutes } from './routes/audit';
import { doorRoutes } from './routes/door';
import { keyRoutes } from './routes/keys';
import { memberRoutes } from './routes/members';
import { orderRoutes } from './routes/orders';
import { signInRoutes, type SignInLimits } from './routes/sign-in';
import { waitingRoomRoutes } from './routes/waiting-rooms';
import { webhookRoutes } from './routes/webhooks';
import { signedInOf, type SignedInLocals } from './signed-in';
import { render } from './views';

export interface DashboardAppOptions {
  /** The proxies whose X-Forwarded-For names the caller (audit log, sign-in limits); empty trusts none. */
  trustedProxies: readonly string[];
  /** Signs CSRF tokens; the same on every replica. */
  secret: string;
  signInLimits: SignInLimits;
}

export function dashboardApp(deps: DashboardDeps, options: DashboardAppOptions, logger: Logger): express.Express {
  const app = express();
  app.set('trust proxy', options.trustedProxies);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(pageSecurityHeaders());
  app.use(express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 200 }));
  app.use(cookieParser());

  // Who is signed in (before CSRF: its tokens are bound to the session).
  app.use(async (req, res, next) => {
    const resolved = await deps.sessions.resolve(deps.cookies.sessionToken(req));
    if (resolved) {
      const signedIn: SignedInLocals = {
        ...resolved,
        organisationName: await deps.organisationName(resolved.member.organisationId),
        timeZone: await deps.organisationZone(resolved.member.organisationId),
        actor: { member: resolved.member, ...originOf(req) },
      };
      res.locals.signedIn = signedIn;
    }
    next();
  });

  const { doubleCsrfProtection } = doubleCsrf({
    getSecret: () => options.secret,
    getSessionIdentifier: (req) => (req.res ? (signedInOf(req.res)?.tokenHash.toString('hex') ?? '') : ''),
    cookieName: deps.cookies.csrf,
    cookieOptions: { secure: deps.cookies.secure, sameSite: 'strict', httpOnly: true, path: '/' },
    getCsrfTokenFromRequest: (req) => (req.body as Record<string, string | undefined> | undefined)?._csrf,
  });
  app.use(doubleCsrfProtection);

  app.use(signInRoutes(deps, options.signInLimits));

  // Everything below needs a signed-in member.
  app.use((req, res, next) => {
    if (signedInOf(res)) return next();
    if (req.method === 'GET') return void res.redirect(303, '/sign-in');
    render(req, res, 'message', { title: 'Signed out', status: 401, message: 'Your session has ended. Sign in again to continue.', link: { href: '/sign-in', label: 'Sign in' } });
  });

  app.get('/', (_req, res) => void res.redirect(303, homeOf(signedInOf(res)!.member.role)));

  app.post('/mode', async (req, res) => {
    const signedIn = signedInOf(res)!;
    const form = req.body as Record<string, string | undefined>;
    const mode = form.mode === 'test' ? 'test' : 'live';
    await deps.sessions.setMode(signedIn.tokenHash, mode);
    // Back to the page it was sent from, on this site only.
    const back = typeof form.return_to === 'string' && /^\/[^/\\]/.test(form.return_to) ? form.return_to.split('?')[0]! : homeOf(signedIn.member.role);
    res.redirect(303, back);
  });

  app.use(webhookRoutes(deps));
  app.use(keyRoutes(deps));
  app.use(memberRoutes(deps));
  app.use(auditRoutes(deps));
  app.use(orderRoutes(deps));
  app.use(waitingRoomRoutes(deps));
  app.use(doorRoutes(deps, logger));

  app.use((req, res) => render(req, res, 'message', { title: 'Not found', status: 404, message: 'There is no such page.' }));
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const page = (status: number, title: string, message: string) => render(req, res, 'message', { title, status, message });
    if (error instanceof DashboardError) return page(error.status, error.status === 404 ? 'Not found' : error.status === 403 ? 'Not allowed' : 'Not done', error.message);
    if ((error as { code?: string }).code === 'EBADCSRFTOKEN') {
      return page(403, 'Form expired', 'This form was sent without a valid security token (it may be from an old tab or another site). Go back, reload the page and try again.');
    }
    if (error instanceof ApiError && error.code === 'resource_missing') return page(404, 'Not found', 'There is no such item in your organisation.');
    if (error instanceof ApiError && error.httpStatus < 500) return page(error.httpStatus, 'Not done', error.message);
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large' || type === 'parameters.too.many') return page(413, 'Request too large', 'The form sent too much data.');
    logger.error({ err: error, path: req.path }, 'dashboard page failed');
    page(500, 'Something went wrong', 'We could not show this page. Try again in a moment.');
  });
  return app;
}
