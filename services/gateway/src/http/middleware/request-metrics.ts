/**
 * HTTP RED at the edge: one histogram per method, route template and
 * status (its count is the rate, 5xx statuses the errors, its buckets the
 * latency). The route is the template the request matched
 * (`/events/:id`), never the raw path, so the label set is bounded by the
 * operations the API declares; a request refused before routing (401, 429,
 * a bad body) is matched against the same templates, and anything else is
 * `unmatched`. Per request: one listener, two clock reads, one observation.
 */
import type { Request, RequestHandler } from 'express';
import { Histogram, type Registry } from '@partner-api/shared';
import type { Operation } from '../operation';

export const UNMATCHED_ROUTE = 'unmatched';

interface Template {
  method: string;
  pattern: RegExp;
  route: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The route template for a request the router never reached. */
export function templateMatcher(operations: readonly Pick<Operation, 'method' | 'expressPath'>[]): (method: string, path: string) => string {
  const templates: Template[] = operations.map(({ method, expressPath }) => ({
    method: method.toUpperCase(),
    // Case-insensitive, as Express's router matches by default: what it would route, this names.
    pattern: new RegExp(`^${expressPath.split(/:\w+/).map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
    route: expressPath,
  }));
  return (method, path) => {
    const wanted = method === 'HEAD' ? 'GET' : method;
    return templates.find((template) => template.method === wanted && template.pattern.test(path))?.route ?? UNMATCHED_ROUTE;
  };
}

export function requestMetrics(registry: Registry, operations: readonly Operation[]): RequestHandler {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests answered by the gateway, by method, route template and status, and how long each took',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const templateOf = templateMatcher(operations);
  const routeOf = (req: Request): string => (req.route as { path?: unknown } | undefined)?.path as string | undefined ?? templateOf(req.method, req.path);
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      // A client that left before the answer is counted under status 499, as proxies do.
      const status = res.writableFinished ? res.statusCode : 499;
      duration.observe({ method: req.method, route: routeOf(req), status }, (performance.now() - started) / 1000);
    });
    next();
  };
}
