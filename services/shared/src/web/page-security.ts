/**
 * The headers of every server-rendered page (the hosted checkout, the
 * channel pages, the dashboard): a CSP that allows no scripts and inline
 * styles only, forms posting only to the page's own site, never framed
 * (`frame-ancestors 'none'` and `X-Frame-Options: DENY`; the embedded
 * checkout relaxes this per session), no referrer, and `no-store`: pages
 * carry customers' and members' data.
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

export function pageSecurityHeaders(): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: {
        directives: {
          'default-src': ["'none'"],
          'style-src': ["'unsafe-inline'"],
          'form-action': ["'self'"],
          'frame-ancestors': ["'none'"],
          'base-uri': ["'none'"],
          // TLS is the ingress's job; local runs are plain http on loopback.
          'upgrade-insecure-requests': null,
        },
      },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
    }),
    (_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      next();
    },
  ];
}
