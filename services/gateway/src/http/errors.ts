/** The end of every request pipeline: unknown routes, and any error as the spec's envelope. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, type Logger } from '@partner-api/shared';
import { sendError } from './envelope';

export const routeNotFound: RequestHandler = (req) => {
  throw new ApiError('route_not_found', `Unrecognised request URL (${req.method} ${req.path}).`);
};

/** Anything that is not an ApiError is logged and becomes a 500 with no internals. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const apiError = error instanceof ApiError ? error : new ApiError('internal_error', 'An internal error occurred.');
    if (apiError.httpStatus >= 500) logger.error({ err: error, request_id: res.locals.requestId }, 'request failed');
    sendError(res, apiError);
  };
}
