/** Request-Id and Service-Version go on every response, errors included, so they are set first. */
import { randomFillSync } from 'node:crypto';
import type { RequestHandler } from 'express';
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

export function requestContext(docsBaseUrl: string): RequestHandler {
  return (_req, res, next) => {
    const requestId = newRequestId();
    res.locals.requestId = requestId;
    res.locals.docsBaseUrl = docsBaseUrl;
    res.setHeader('Request-Id', requestId);
    res.setHeader('Service-Version', API_VERSION);
    next();
  };
}
