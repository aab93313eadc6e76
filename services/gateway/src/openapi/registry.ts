/**
 * The OpenAPI 3.1 document, generated from the operations the gateway
 * serves (the same declarations mount the routes) and the zod schemas that
 * validate requests and describe responses.
 */
import { getOpenApiMetadata, OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_ERRORS, API_VERSION } from '@partner-api/shared';
import { ErrorEnvelopeSchema } from './schemas';
import { OPERATION_TAGS } from './tags';
import { DELIVERY_HEADERS, WEBHOOK_EVENTS } from './webhook-events';
import { z } from './zod';

const header = (description: string) => ({ schema: { type: 'string' as const }, description });

export const COMMON_HEADERS = {
  'Request-Id': header('Unique id of the request; also error.request_id.'),
  'Service-Version': header(`API version that served the request (${API_VERSION}).`),
  'RateLimit-Limit': header('Requests allowed per 60-second window for this key.'),
  'RateLimit-Remaining': header('Requests left in the current window.'),
  'RateLimit-Reset': header('Seconds until the window resets.'),
};

const errorResponse = (description: string, extraHeaders = {}) => ({
  description,
  headers: { ...COMMON_HEADERS, ...extraHeaders },
  content: { 'application/json': { schema: ErrorEnvelopeSchema } },
});

/** Error responses every authenticated endpoint can return. */
export const COMMON_ERRORS = {
  401: errorResponse('Missing, invalid, revoked or expired API key.'),
  403: errorResponse('Browser request, IP not allowed, or insufficient scope.'),
  429: errorResponse('Rate limited.', { 'Retry-After': header('Seconds to wait before retrying.') }),
  500: errorResponse('Server-side failure; safe to retry with the same Idempotency-Key.'),
};

export function jsonResponse(description: string, schema: z.ZodType) {
  return { description, headers: COMMON_HEADERS, content: { 'application/json': { schema } } };
}

/** A success with no body (204), with the headers every response has. */
export function emptyResponse(description: string) {
  return { description, headers: COMMON_HEADERS };
}

export { errorResponse };

/** The document for these operations (each route as `defineOperation` builds it). */
export function generateOpenApiDocument(serverUrl: string, routes: readonly RouteConfig[]) {
  const registry = new OpenAPIRegistry();
  const bearerAuth = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An organisation API key: svc_live_… or svc_test_…',
  });
  for (const route of routes) {
    registry.registerPath({ security: [{ [bearerAuth.name]: [] }], ...withBodyRequirement(route), responses: { ...COMMON_ERRORS, ...route.responses } });
  }
  registerWebhookEvents(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Ticketing Partner API',
      version: API_VERSION,
      contact: { name: 'Partner API support', url: 'https://docs.partner-api.example.com/support' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: `Partner API v1. Error codes: ${Object.keys(API_ERRORS).join(', ')}.`,
    },
    servers: [{ url: serverUrl }],
    tags: Object.entries(OPERATION_TAGS).map(([name, description]) => ({ name, description })),
  });
}

/**
 * Marks a request body `required` when the server refuses a request without
 * one (D391). The gateway reads a missing body as `{}`, so a body is optional
 * exactly when `{}` is a valid one: its schema accepts it and states no
 * alternatives of which one must be sent (`anyOf`, as check-in's code or
 * ticket id).
 */
function withBodyRequirement(route: RouteConfig): RouteConfig {
  const body = route.request?.body;
  const media = body?.content['application/json'];
  const schema = media && 'schema' in media ? media.schema : undefined;
  if (!body || !(schema instanceof z.ZodType)) return route;
  const emptyIsValid = schema.safeParse({}).success && !getOpenApiMetadata(schema).anyOf;
  return { ...route, request: { ...route.request, body: { ...body, required: !emptyIsValid } } };
}

/** Each event type as a webhook POST: its body schema, the delivery headers and the signature that secures it. */
function registerWebhookEvents(registry: OpenAPIRegistry) {
  const signature = registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'Service-Signature',
    description: '`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 keyed with the endpoint secret (`whsec_…`) over `<t>.<raw body>`; during a rotation two `v1` values.',
  });
  for (const { type, schema } of WEBHOOK_EVENTS) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `receive_${type.replace('.', '_')}`,
      summary: `The ${type} event, as delivered to a webhook endpoint.`,
      description: 'Verify `Service-Signature` over the raw body; answer 2xx within 10 seconds.',
      tags: ['Webhook events'],
      security: [{ [signature.name]: [] }],
      request: { headers: DELIVERY_HEADERS, body: { content: { 'application/json': { schema } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery.' } },
    });
  }
}
