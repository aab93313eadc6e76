/** Request-Id and Service-Version go on every response, errors included, so they are set first. */
import type { RequestHandler } from 'express';
import { API_VERSION, randomBase62 } from '@partner-api/shared';

export function requestContext(docsBaseUrl: string): RequestHandler {
  return (_req, res, next) => {
    const requestId = `req_${randomBase62(20)}`;
    res.locals.requestId = requestId;
    res.locals.docsBaseUrl = docsBaseUrl;
    res.setHeader('Request-Id', requestId);
    res.setHeader('Service-Version', API_VERSION);
    next();
  };
}
