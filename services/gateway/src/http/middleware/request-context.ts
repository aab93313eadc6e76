/**
 * Request-Id and Service-Version go on every response, errors included, so
 * they are set first. The request's deadline starts here too: its gRPC
 * calls carry what is left of it (D442).
 */
import { randomFillSync } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { API_VERSION } from '@partner-api/shared';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 20;
// Random bytes are drawn 4 KB at a time (about 200 ids) rather than per request.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `req_` and 20 base62 characters from the CSPRNG, unbiased (bytes ≥ 248 are skipped), like randomBase62. */
export function newRequestId(): string {
  let id = 'req_';
  while (id.length < 4 + ID_LENGTH) {
    if (used === pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const byte = pool.readUInt8(used++);
    if (byte < 248) id += BASE62[byte % 62];
  }
  return id;
}

/** Whether the request's client has gone before its answer was written. */
export const clientGone = (res: Response): boolean => res.locals.clientGone === true;

/** How long a request may take unless GATEWAY_REQUEST_TIMEOUT_MS says otherwise: inside a client's usual 10 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 8_000;

export function requestContext(docsBaseUrl: string, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): RequestHandler {
  return (_req, res, next) => {
    const requestId = newRequestId();
    res.locals.requestId = requestId;
    res.locals.docsBaseUrl = docsBaseUrl;
    res.locals.deadline = Date.now() + requestTimeoutMs;
    // A client that leaves before its answer is written ends the request's time there: no work is started for it after (D442).
    res.once('close', () => {
      if (!res.writableFinished) res.locals.clientGone = true;
    });
    res.setHeader('Request-Id', requestId);
    res.setHeader('Service-Version', API_VERSION);
    next();
  };
}
