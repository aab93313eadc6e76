/**
 * Keys are for servers. Browsers always send Sec-Fetch-* headers (scripts
 * cannot remove them) and an Origin on cross-origin requests; server-side
 * HTTP clients send neither. See docs/decisions.md.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '@partner-api/shared';

export function isBrowserRequest(headers: Record<string, string | string[] | undefined>): boolean {
  return Boolean(headers.origin) || Object.keys(headers).some((name) => name.startsWith('sec-fetch-'));
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
