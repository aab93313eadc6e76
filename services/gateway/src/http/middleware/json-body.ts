/**
 * Bodies of POST and PATCH: JSON only, at most 100 KB (a full checkout
 * session with 20 lines and 20 metadata entries is about 15 KB). Every
 * failure is a 400 parameter_invalid in the envelope; see docs/decisions.md.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ApiError } from '@partner-api/shared';

export const BODY_LIMIT = '100kb';

const hasBody = (headers: Record<string, string | string[] | undefined>) =>
  Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;

const requireJsonType: RequestHandler = (req, _res, next) => {
  if ((req.method === 'POST' || req.method === 'PATCH') && hasBody(req.headers) && !req.is('application/json')) {
    throw new ApiError('parameter_invalid', 'Request bodies must be JSON with Content-Type: application/json.', null);
  }
  next();
};

const parse = express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' });

const explainParseErrors: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, _res, next) => {
  if (error.type === 'entity.too.large') return next(new ApiError('parameter_invalid', 'The request body is larger than 100 KB.', null));
  if (error.type === 'entity.parse.failed') return next(new ApiError('parameter_invalid', 'The request body is not valid JSON.', null));
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return next(new ApiError('parameter_invalid', 'Request bodies must be UTF-8 JSON.', null));
  }
  return next(error);
};

export const jsonBody = [requireJsonType, parse, explainParseErrors];
