/**
 * Bearer key → the key's record, checked in a fixed order (docs/decisions.md
 * D3): missing → malformed/unknown → revoked → expired → IP allowlist →
 * rate limit. More than one Authorization header is refused before any of
 * them is read (D386). The record comes from the process cache; the rate-limit
 * script confirms it is current, and a stale copy is re-read and every check
 * run again, so operator changes bite on the next request. A key the
 * admission script admits is noted as used (domain/key-usage.ts, D310).
 */
import type { RequestHandler, Response } from 'express';
import { ApiError, type RequestContext } from '@partner-api/shared';
import { assertKeyUsable, hashSecret, KEY_SHAPE, rateLimitFor, type StoredKey } from '../../domain/api-keys';
import { isAllowed } from '../../domain/ip-allowlist';
import type { KeyResolver } from '../../domain/key-resolver';
import type { KeyUsage } from '../../domain/key-usage';
import type { KeyAdmission } from '../../storage/key-admission';

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <API_KEY>".');
  return match[1];
}

/** Node keeps only the first Authorization header in `headers`; the raw list has every one. */
function authorizationHeaderCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count += 1;
  }
  return count;
}

function checkKey(key: StoredKey | null, callerIp: string, now: Date): StoredKey {
  if (!key) throw new ApiError('invalid_api_key', 'The API key is malformed or does not exist.');
  assertKeyUsable(key, now);
  if (!isAllowed(key.ipAllowlist, callerIp)) {
    throw new ApiError('ip_not_allowed', `Requests from ${callerIp || 'this address'} are not allowed for this key.`);
  }
  return key;
}

function rateLimitHeaders(res: Response, limit: number, count: number, resetSeconds: number): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - count)));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
}

/** The caller's context, which authenticate put on the response; routes behind it read it here. */
export const callerContext = (res: Response): RequestContext => res.locals.ctx as RequestContext;

export function authenticate(
  resolver: KeyResolver,
  admission: KeyAdmission,
  usage?: Pick<KeyUsage, 'note'>,
  clock: () => Date = () => new Date(),
): RequestHandler {
  return async (req, res, next) => {
    if (req.headers.authorization !== undefined && authorizationHeaderCount(req.rawHeaders) > 1) {
      throw new ApiError('parameter_invalid', 'Send one Authorization header, not several.', 'Authorization');
    }
    const secret = bearerToken(req.headers.authorization);
    if (secret === undefined) {
      throw new ApiError('missing_api_key', 'No API key provided. Send "Authorization: Bearer <API_KEY>".');
    }
    if (!KEY_SHAPE.test(secret)) throw new ApiError('invalid_api_key', 'The API key is malformed or does not exist.');
    const hash = hashSecret(secret);
    const hashHex = hash.toString('hex');

    for (let attempt = 0; ; attempt += 1) {
      // A cached key is used without an await of its own: the admission script is the request's one wait.
      const resolved = resolver.cached(hashHex) ?? (await resolver.load(hash, hashHex));
      let key: StoredKey;
      try {
        key = checkKey(resolved.key, req.ip ?? '', clock());
      } catch (refusal) {
        // Refuse on a cached copy only once it is known to be current: an
        // operator may just have widened the allowlist or the key may be new.
        if (attempt < 2 && !(await resolver.isCurrent(hashHex, resolved))) {
          resolver.forget(hashHex);
          continue;
        }
        throw refusal;
      }
      const verdict = await admission.admit(hashHex, resolved.version);
      if (verdict.stale) {
        resolver.forget(hashHex);
        if (attempt < 2) continue;
        throw new ApiError('internal_error', 'An internal error occurred.');
      }
      // The key's own id: a rolled key's old secret still resolves to the old key, so its use shows there.
      // Counted before the limit: a caller over its limit is still using the key.
      usage?.note(key.id);
      const limit = rateLimitFor(key);
      rateLimitHeaders(res, limit, verdict.count, verdict.resetSeconds);
      if (verdict.count > limit) {
        res.setHeader('Retry-After', String(verdict.resetSeconds));
        throw new ApiError('rate_limited', `Too many requests: this key allows ${limit} per minute. Retry after ${verdict.resetSeconds} seconds.`);
      }
      res.locals.key = key;
      res.locals.ctx = {
        organisationId: key.organisationId,
        mode: key.mode,
        keyId: key.id,
        requestId: res.locals.requestId as string,
        deadline: res.locals.deadline as number,
      } satisfies RequestContext;
      return next();
    }
  };
}
