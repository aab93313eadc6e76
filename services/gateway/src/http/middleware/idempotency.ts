/**
 * `Idempotency-Key` for POST, PATCH and DELETE, per API key, for 24 hours:
 * the same key and the same request replays the first response byte for
 * byte (`Idempotent-Replayed: true`); a different request with the key is
 * `422 idempotency_key_reused`; while the first still runs, `409
 * idempotency_request_in_progress`; a 5xx or a 429 is not remembered. "The same
 * request" is the method, the path and the body as canonical JSON (key order
 * and white space do not matter); see docs/decisions.md. A request no
 * operation routes (an unknown path or method) passes straight to the
 * `404 route_not_found` and its key is never recorded (D384).
 */
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError, type Logger } from '@partner-api/shared';
import type { StoredKey } from '../../domain/api-keys';
import type { IdempotencyRecord, IdempotencyStore } from '../../storage/idempotency-store';
import type { Operation } from '../operation';
import { templateMatcher, UNMATCHED_ROUTE } from './request-metrics';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function replay(res: Response, record: Extract<IdempotencyRecord, { state: 'done' }>): void {
  res.setHeader('Idempotent-Replayed', 'true');
  if (record.response.contentType) res.setHeader('Content-Type', record.response.contentType);
  res.status(record.response.status).end(Buffer.from(record.response.body, 'base64'));
}

/** `operations`: the routes behind this middleware; a request none of them takes is not remembered. */
export function idempotency(store: IdempotencyStore, logger: Logger, operations: readonly Pick<Operation, 'method' | 'expressPath'>[]): RequestHandler {
  const remembered = rememberedWrite(store, logger);
  const routeOf = templateMatcher(operations);
  // Reads and key-less writes pass straight through, without an async call (a promise) per request.
  return (req, res, next) => {
    const header = req.header('Idempotency-Key');
    if (!WRITE_METHODS.has(req.method) || header === undefined) return next();
    if (routeOf(req.method, req.path) === UNMATCHED_ROUTE) return next();
    return remembered(header, req, res, next);
  };
}

function rememberedWrite(store: IdempotencyStore, logger: Logger) {
  return async (header: string, req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (header.length < 1 || header.length > 255) {
      throw new ApiError('parameter_invalid', 'Idempotency-Key must be 1 to 255 characters.', 'Idempotency-Key');
    }
    const apiKey = res.locals.key as StoredKey;
    const keyHash = sha256(header);
    const fingerprint = sha256(`${req.method} ${req.path}\n${canonicalJson(req.body)}`);

    const existing = await store.claim(apiKey.id, keyHash, fingerprint);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.', 'Idempotency-Key');
      }
      if (existing.state === 'running') {
        throw new ApiError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still running; retry shortly.', 'Idempotency-Key');
      }
      return replay(res, existing);
    }

    // Remember the response before it leaves, so a retry that races it finds the result.
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      const bytes =
        chunk === undefined || typeof chunk === 'function'
          ? Buffer.alloc(0)
          : Buffer.isBuffer(chunk)
            ? chunk
            : Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      const contentType = res.getHeader('content-type');
      const remember =
        isUnfinished(res.statusCode)
          ? store.release(apiKey.id, keyHash)
          : store.complete(apiKey.id, keyHash, fingerprint, {
              status: res.statusCode,
              contentType: typeof contentType === 'string' ? contentType : null,
              body: bytes.toString('base64'),
            });
      remember
        .catch((error: unknown) => logger.error({ err: error }, 'could not record an idempotent response'))
        .finally(() => end(chunk, encoding, callback));
      return res;
    }) as Response['end'];
    next();
  };
}

/**
 * Answers that say the request did not run to its end, so a retry with the
 * key must run it (D29, D445): a 5xx, and a 429 (a rate limit or a service
 * shedding the call; the same answer replayed would hold the key to "busy" for
 * 24 hours).
 */
function isUnfinished(status: number): boolean {
  return status >= 500 || status === 429;
}
