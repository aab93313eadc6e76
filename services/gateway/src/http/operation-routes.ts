/**
 * Mounts the API's operations on the app. A path whose `{id}` holds an
 * escape that does not decode (`/events/%FF`) never reaches Express's
 * router, which would fail it as a server error: it names no object, so it
 * is that operation's `404 resource_missing`.
 */
import type { Express, RequestHandler } from 'express';
import type { Operation, OperationDeps } from './operation';
import type { PathId } from './path-ids';

interface IdRoute {
  method: string;
  pattern: RegExp;
  id: PathId;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function idRoutes(operations: readonly Operation[]): IdRoute[] {
  return operations.flatMap(({ method, path, id }) => {
    if (!id) return [];
    const [before, after] = path.split('{id}') as [string, string];
    return [{ method: method.toUpperCase(), pattern: new RegExp(`^${escapeRegExp(before)}([^/]+)${escapeRegExp(after)}/?$`), id }];
  });
}

const decodes = (text: string) => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

function undecodablePathIds(operations: readonly Operation[]): RequestHandler {
  const routes = idRoutes(operations);
  return (req, _res, next) => {
    if (!req.path.includes('%')) return next();
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    for (const route of routes) {
      const raw = route.method === method ? route.pattern.exec(req.path)?.[1] : undefined;
      if (raw !== undefined && !decodes(raw)) throw route.id.missing();
    }
    next();
  };
}

export function mountOperations(app: Express, operations: readonly Operation[], deps: OperationDeps): void {
  app.use(undecodablePathIds(operations));
  for (const operation of operations) app[operation.method](operation.expressPath, operation.handler(deps));
}
