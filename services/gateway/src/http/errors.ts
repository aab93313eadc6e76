/** The end of every request pipeline: unknown routes, and any error as the spec's envelope. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, type Logger } from '@partner-api/shared';
import { sendError } from './envelope';
import { templateMatcher } from './middleware/request-metrics';
import type { Operation } from './operation';

export const routeNotFound: RequestHandler = (req) => {
  throw new ApiError('route_not_found', `Unrecognised request URL (${req.method} ${req.path}).`);
};

/**
 * Anything that is not an ApiError (a backend that did not answer, the
 * gateway's Redis away) is logged and becomes a 500 with no internals:
 * the operation's own failure answer where it declares one (the route is
 * found by its template: the failure may come before routing, in
 * authentication or idempotency), `internal_error` otherwise.
 */
export function errorHandler(logger: Logger, operations: readonly Operation[] = []): ErrorRequestHandler {
  const routeOf = templateMatcher(operations);
  const failures = new Map(operations.flatMap((operation) => (operation.failure ? [[`${operation.method.toUpperCase()} ${operation.expressPath}`, operation.failure] as const] : [])));
  return (error, req, res, _next) => {
    const unexpected = !(error instanceof ApiError) || error.code === 'internal_error';
    const apiError = unexpected
      ? (failures.get(`${req.method} ${routeOf(req.method, req.path)}`) ?? (error instanceof ApiError ? error : new ApiError('internal_error', 'An internal error occurred.')))
      : error;
    if (apiError.httpStatus >= 500) logger.error({ err: error, request_id: res.locals.requestId }, 'request failed');
    sendError(res, apiError);
  };
}
