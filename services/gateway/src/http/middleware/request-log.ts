/**
 * One log line per request (docs/decisions.md D25): request id, method, URL,
 * caller address, status and time, plus trace ids from the logger's mixin;
 * no headers or bodies. The URL keeps the values of the API's own query
 * parameters only (D383): a client that puts its key in the query
 * (`?api_key=svc_live_…`) leaves `?api_key=[redacted]`. The address is the
 * caller as TRUST_PROXY resolves it (D381). Written when the response closes:
 * `request completed`, `request errored` (5xx, at error level) or `request
 * aborted` (the client left before the response was sent; status null). Same
 * lines pino-http wrote, at a fraction of its cost: no child logger,
 * serializers or request wrapper per request.
 */
import type { RequestHandler } from 'express';
import { loggableUrl, type Logger } from '@partner-api/shared';
import type { Operation } from '../operation';

/** Every query parameter name an operation declares (`limit`, `cursor`, …). */
function apiQueryNames(operations: readonly Pick<Operation, 'route'>[]): Set<string> {
  return new Set(operations.flatMap(({ route }) => Object.keys((route.request?.query as { shape?: object } | undefined)?.shape ?? {})));
}

export function requestLog(parent: Logger, operations: readonly Pick<Operation, 'route'>[]): RequestHandler {
  // The line names no header or body, so no redacted path can occur in it: skip the
  // path redaction pass (a fifth of the line's cost). Secret-shaped text is still masked
  // in every line by the logger's stream hook.
  const logger = parent.child({}, { redact: [] });
  const known = apiQueryNames(operations);
  return (req, res, next) => {
    const started = Date.now();
    res.once('close', () => {
      const finished = res.writableFinished;
      const status = res.statusCode;
      const line = {
        req: { id: res.locals.requestId as string, method: req.method, url: loggableUrl(req.originalUrl, known), ip: req.ip },
        res: { status: finished ? status : null },
        responseTime: Date.now() - started,
      };
      if (!finished) logger.info(line, 'request aborted');
      else if (status >= 500) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    });
    next();
  };
}
