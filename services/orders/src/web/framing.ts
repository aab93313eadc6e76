/**
 * Pages are never framed (helmet's `frame-ancestors 'none'` and
 * `X-Frame-Options: DENY`), except the embedded checkout's pages, which
 * exactly one site may frame: the one the checkout was embedded from (D244).
 */
import type { Response } from 'express';

export function allowFramingBy(res: Response, origin: string): void {
  const policy = String(res.getHeader('Content-Security-Policy') ?? '');
  res.setHeader('Content-Security-Policy', policy.replace(/frame-ancestors [^;]*/, `frame-ancestors ${origin}`));
  // X-Frame-Options has no value naming one other site; CSP frame-ancestors decides in every browser that frames.
  res.removeHeader('X-Frame-Options');
}
