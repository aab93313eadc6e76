/**
 * Bearer key → the key's record, checked in a fixed order (docs/decisions.md):
 * missing → malformed/unknown → revoked → expired → IP allowlist.
 */
import type { RequestHandler } from 'express';
import { ApiError, type RequestContext } from '@partner-api/shared';
import { assertKeyUsable, hashSecret, KEY_SHAPE, type StoredKey } from '../../domain/api-keys';
import { isAllowed } from '../../domain/ip-allowlist';
import type { KeyRepository } from '../../storage/key-repository';

export interface AuthenticatedLocals {
  requestId: string;
  key: StoredKey;
  ctx: RequestContext;
}

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError('invalid_api_key', 'The Authorization header must be "Bearer <API_KEY>".');
  return match[1];
}

export function authenticate(keys: KeyRepository, clock: () => Date = () => new Date()): RequestHandler {
  return async (req, res, next) => {
    const secret = bearerToken(req.headers.authorization);
    if (secret === undefined) {
      throw new ApiError('missing_api_key', 'No API key provided. Send "Authorization: Bearer <API_KEY>".');
    }
    const key = KEY_SHAPE.test(secret) ? await keys.findByHash(hashSecret(secret)) : undefined;
    if (!key) throw new ApiError('invalid_api_key', 'The API key is malformed or does not exist.');
    assertKeyUsable(key, clock());
    if (!isAllowed(key.ipAllowlist, req.ip ?? '')) {
      throw new ApiError('ip_not_allowed', `Requests from ${req.ip ?? 'this address'} are not allowed for this key.`);
    }
    res.locals.key = key;
    res.locals.ctx = {
      organisationId: key.organisationId,
      mode: key.mode,
      keyId: key.id,
      requestId: res.locals.requestId as string,
    } satisfies RequestContext;
    next();
  };
}
