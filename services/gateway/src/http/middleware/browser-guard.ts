/**
 * Keys are for servers. Browsers send Sec-Fetch-Site and Sec-Fetch-Dest on
 * every request (scripts cannot remove them) and an Origin on cross-origin
 * ones. Server-side clients send neither; Node's own fetch (undici) does send
 * Sec-Fetch-Mode, so that header alone must not count. See docs/decisions.md.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@partner-api/shared';

export function isBrowserRequest(headers: Record<string, string | string[] | undefined>): boolean {
  return Boolean(headers.origin || headers['sec-fetch-site'] || headers['sec-fetch-dest']);
}

export const browserGuard: RequestHandler = (req, _res, next) => {
  if (isBrowserRequest(req.headers)) {
    throw new ApiError(
      'browser_request_blocked',
      'API keys are for server-side use only; requests from web browsers are refused.',
    );
  }
  next();
};
