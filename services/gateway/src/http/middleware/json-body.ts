/**
 * Bodies of POST and PATCH: JSON only, at most 100 KB (a full checkout
 * session with 20 lines and 20 metadata entries is about 15 KB), valid
 * UTF-8, and text every service can store (see request-text.ts). Every
 * failure is a 400 parameter_invalid in the envelope; see docs/decisions.md.
 */
import { isUtf8 } from 'node:buffer';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ApiError } from '@partner-api/shared';
import { assertStorableBody } from './request-text';

export const BODY_LIMIT = '100kb';

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;

const requireJsonType: RequestHandler = (req, _res, next) => {
  if ((req.method === 'POST' || req.method === 'PATCH') && hasBody(req.headers) && !req.is('application/json')) {
    throw new ApiError('parameter_invalid', 'Request bodies must be JSON with Content-Type: application/json.', null);
  }
  next();
};

class UndecodableBody extends Error {}

const parse = express.json({
  limit: BODY_LIMIT,
  strict: true,
  type: 'application/json',
  // Invalid UTF-8 would otherwise be stored with U+FFFD in its place.
  verify: (_req, _res, raw) => {
    if (!isUtf8(raw)) throw new UndecodableBody();
  },
});

const checkText: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined) assertStorableBody(req.body);
  next();
};

const explainParseErrors: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, _res, next) => {
  if (error instanceof ApiError) return next(error);
  if (error.type === 'entity.verify.failed') return next(new ApiError('parameter_invalid', 'The request body is not valid UTF-8.', null));
  if (error.type === 'entity.too.large') return next(new ApiError('parameter_invalid', 'The request body is larger than 100 KB.', null));
  if (error.type === 'entity.parse.failed') return next(new ApiError('parameter_invalid', 'The request body is not valid JSON.', null));
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return next(new ApiError('parameter_invalid', 'Request bodies must be UTF-8 JSON.', null));
  }
  // Anything else the body reader refuses is the client's (a gzip body that does not inflate, a short body).
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return next(new ApiError('parameter_invalid', 'The request body could not be read (check Content-Encoding and Content-Length).', null));
  }
  return next(error);
};

export const jsonBody = [requireJsonType, parse, checkText, explainParseErrors];
