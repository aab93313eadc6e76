/**
 * One declaration per API operation. `defineOperation` takes the method,
 * the path (written once, in OpenAPI form), the scopes, the schemas of the
 * path id, query and body, the documented responses and the handler; the
 * gateway mounts the Express route and the OpenAPI document lists the
 * operation, both from that one object. The handler receives its input
 * already validated, in this order: scope → path id → query → body.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Request, RequestHandler, Response } from 'express';
import { ApiError, type RequestContext } from '@partner-api/shared';
import type { Scope, StoredKey } from '../domain/api-keys';
import type { OperationLimits } from '../storage/operation-limits';
import type { AbandonedRequests } from './abandoned-requests';
import type { OperationTag } from '../openapi/tags';
import { z } from '../openapi/zod';
import { callerContext } from './middleware/authenticate';
import { clientGone } from './middleware/request-context';
import { assertStorableQuery } from './middleware/request-text';
import type { PageBodies } from './page-bodies';
import type { CursorSealer } from './pagination';
import type { PathId } from './path-ids';
import type { ServiceClients } from './service-clients';
import { validate, type ValidateOptions } from './validation';

/** What handlers may use besides their input: the downstream services, the cursor sealer, the per-organisation operation limits and the list pages kept by their tags. */
export interface OperationDeps {
  clients: ServiceClients;
  /** Counts the requests whose answer never reached their client (checkout sessions, D444). */
  abandoned: AbandonedRequests;
  sealer: CursorSealer;
  limits: OperationLimits;
  pageBodies: PageBodies;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface OperationInput<Q, B> {
  /** The path's `{id}`, when the path has one. */
  id: string;
  query: Q;
  body: B;
  ctx: RequestContext;
  key: StoredKey;
  req: Request;
  /** The response, for handlers that must know whether their answer reached the caller (checkout sessions, D444). */
  res: Response;
  deps: OperationDeps;
}

/** What a handler answers: a status and a JSON body (a value, or JSON text already written), or no body (204). */
export interface Reply {
  status: number;
  json?: unknown;
  /** The body as JSON already written (UTF-8), sent as it is (a page rendered by its service). */
  jsonText?: Buffer;
}

export const ok = (json: unknown): Reply => ({ status: 200, json });
export const created = (json: unknown): Reply => ({ status: 201, json });
export const noContent = (): Reply => ({ status: 204 });

export interface OperationSpec<Q extends z.ZodObject | undefined, B extends z.ZodType | undefined> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form, e.g. `/events/{id}`; the only path parameter the API has is `{id}`. */
  path: `/${string}`;
  operationId: string;
  tag: OperationTag;
  summary: string;
  description: string;
  /** The key needs any one of these; `any` for operations every valid key may call. */
  scopes: readonly Scope[] | 'any';
  id?: PathId;
  query?: Q;
  body?: B;
  bodyOptions?: ValidateOptions;
  /** How the `Idempotency-Key` header is described on a write (the default suits most). */
  idempotencyNote?: string;
  /**
   * What any unexpected failure of this operation answers instead of
   * `internal_error`, wherever in the pipeline it happens (the gateway's
   * own Redis included): the spec's `hold_failed` for checkouts.
   */
  failure?: ApiError;
  /**
   * Calls per 60-second window for the whole organisation, counted after
   * the input is valid and before the handler runs (replays). The answer
   * carries this limit's RateLimit-* headers instead of the key's.
   */
  organisationRateLimit?: number;
  /**
   * A write that moves money or stock: under load it may use the whole
   * admission limit, where other requests keep to what its reserve leaves (D441).
   */
  critical?: boolean;
  responses: RouteConfig['responses'];
  handler: (input: OperationInput<Infer<Q>, Infer<B>>) => Promise<Reply> | Reply;
}

export interface Operation {
  readonly method: OperationSpec<undefined, undefined>['method'];
  readonly path: string;
  /** The Express form of `path` (`/events/:id`). */
  readonly expressPath: string;
  /** The path's `{id}`, when it has one. */
  readonly id: PathId | undefined;
  /** The OpenAPI operation, without the common parts the registry adds. */
  readonly route: RouteConfig;
  /** Its answer to an unexpected failure, when not `internal_error` (see OperationSpec.failure). */
  readonly failure: ApiError | undefined;
  /** Admitted from the critical share under load (see OperationSpec.critical). */
  readonly critical: boolean;
  handler(deps: OperationDeps): RequestHandler;
}

const WRITE_METHODS = new Set(['post', 'patch', 'delete']);
const DEFAULT_IDEMPOTENCY_NOTE = 'Makes retries safe for 24 hours.';

export function checkScopes(key: StoredKey, scopes: readonly Scope[] | 'any'): void {
  if (scopes === 'any' || scopes.some((scope) => key.scopes.includes(scope))) return;
  throw new ApiError('insufficient_scope', `This API key lacks the required scope: ${scopes.join(' or ')}.`);
}

function openApiRoute(spec: OperationSpec<z.ZodObject | undefined, z.ZodType | undefined>): RouteConfig {
  const request: NonNullable<RouteConfig['request']> = {};
  if (spec.id) request.params = z.object({ id: spec.id.schema });
  if (spec.query) request.query = spec.query;
  if (WRITE_METHODS.has(spec.method)) {
    request.headers = z.object({
      'Idempotency-Key': z
        .string()
        .min(1)
        .max(255)
        .optional()
        .openapi({ description: spec.idempotencyNote ?? DEFAULT_IDEMPOTENCY_NOTE }),
    });
  }
  if (spec.body) request.body = { content: { 'application/json': { schema: spec.body } } };
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: spec.description,
    ...(Object.keys(request).length ? { request } : {}),
    responses: spec.responses,
  };
}

function storableQuery(query: Record<string, unknown>): Record<string, unknown> {
  assertStorableQuery(query);
  return query;
}

function send(res: Response, reply: Reply): void {
  if (reply.jsonText !== undefined) res.status(reply.status).set('Content-Type', 'application/json; charset=utf-8').send(reply.jsonText);
  else if (reply.json === undefined) res.status(reply.status).end();
  else res.status(reply.status).json(reply.json);
}

/** The organisation's count for a limited operation; over the limit, the spec's 429 with Retry-After. */
async function admitOperation(res: Response, limits: OperationLimits, organisationId: number, operationId: string, limit: number): Promise<void> {
  const verdict = await limits.count(organisationId, operationId);
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - verdict.count)));
  res.setHeader('RateLimit-Reset', String(verdict.resetSeconds));
  if (verdict.count > limit) {
    res.setHeader('Retry-After', String(verdict.resetSeconds));
    throw new ApiError('rate_limited', `Too many requests: ${operationId} allows ${limit} per minute for the organisation. Retry after ${verdict.resetSeconds} seconds.`);
  }
}

export function defineOperation<Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  spec: OperationSpec<Q, B>,
): Operation {
  const general = spec as unknown as OperationSpec<z.ZodObject | undefined, z.ZodType | undefined>;
  return {
    method: spec.method,
    path: spec.path,
    expressPath: spec.path.replace(/\{(\w+)\}/g, ':$1'),
    id: spec.id,
    route: openApiRoute(general),
    failure: spec.failure,
    critical: spec.critical ?? false,
    handler(deps) {
      return async (req, res) => {
        const key = res.locals.key as StoredKey;
        checkScopes(key, spec.scopes);
        const id = spec.id ? spec.id.parse(req.params.id) : '';
        const query = (spec.query ? validate(spec.query, storableQuery(req.query)) : undefined) as Infer<Q>;
        const body = (spec.body ? validate(spec.body, req.body ?? {}, spec.bodyOptions) : undefined) as Infer<B>;
        if (spec.organisationRateLimit !== undefined) await admitOperation(res, deps.limits, key.organisationId, spec.operationId, spec.organisationRateLimit);
        // Its client left while it was checked: nothing is started for nobody (D442).
        if (clientGone(res)) return;
        send(res, await spec.handler({ id, query, body, ctx: callerContext(res), key, req, res, deps }));
      };
    },
  };
}
