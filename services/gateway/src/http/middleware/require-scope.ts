/** A route names the scopes that grant it; a key needs any one of them. */
import type { RequestHandler } from 'express';
import { ApiError } from '@partner-api/shared';
import type { Scope, StoredKey } from '../../domain/api-keys';

export function requireScope(...anyOf: Scope[]): RequestHandler {
  return (_req, res, next) => {
    const key = res.locals.key as StoredKey;
    if (!anyOf.some((scope) => key.scopes.includes(scope))) {
      throw new ApiError('insufficient_scope', `This API key lacks the required scope: ${anyOf.join(' or ')}.`);
    }
    next();
  };
}
