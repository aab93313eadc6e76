/**
 * Webhook endpoints (scope `webhooks:manage`), served by the webhooks
 * service: the list (one page), create (the only response with the
 * secret), read, update, delete and a signed test send. The gateway checks
 * shapes; the webhooks service checks receiver addresses and owns the rules.
 */
import { EVENT_TYPES, gen, toApiJson } from '@partner-api/shared';
import { emptyResponse, errorResponse, jsonResponse } from '../../openapi/registry';
import { HTTPS_URL_PATTERN, listOf, WebhookDeliverySchema, WebhookEndpointSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { singlePage } from '../list-operation';
import { created, defineOperation, noContent, ok } from '../operation';
import { integerId } from '../path-ids';

/** Longer than the receiver's 10-second limit plus resolving its name. */
const TEST_SEND_DEADLINE_MS = 15_000;

const endpointId = integerId('webhook endpoint', 'Webhook endpoint id.', '12');
const manage = ['webhooks:manage'] as const;

const URL_RULE = 'url must be an https:// address of at most 2,048 characters.';
const url = z.string({ error: URL_RULE }).min(1, { error: URL_RULE }).max(2_048, { error: URL_RULE });
const description = z
  .string({ error: 'description must be a string.' })
  .max(255, { error: 'description is at most 255 characters.' })
  .nullable()
  .optional()
  .openapi({ description: 'Your label for the endpoint, at most 255 characters.' });
const eventTypes = z
  .array(z.enum(['*', ...EVENT_TYPES], { error: `Each event type must be one of ${EVENT_TYPES.join(', ')}, or "*".` }), {
    error: 'event_types must be a list of event types.',
  })
  .min(1, { error: 'event_types must list at least one event type, or "*" for all.' })
  .max(EVENT_TYPES.length, { error: 'event_types lists each type at most once.' });

export const CreateWebhookEndpointBody = z
  .object({
    url: url.openapi({
      description: 'Absolute HTTPS address on the public internet, at most 2,048 characters; private, loopback and internal addresses are refused.',
      pattern: HTTPS_URL_PATTERN,
      example: 'https://hooks.example.com/partner-api',
    }),
    event_types: eventTypes.optional().openapi({ description: 'Types to receive, or `["*"]` (the default) for all, including types added later. `*` stands alone.' }),
    description,
    mode: z.enum(['live', 'test'], { error: 'mode must be live or test.' }).optional().openapi({
      description: '`live` (the default for live keys) receives real activity; `test` receives only test events sent to it. Test keys create and see test endpoints only.',
    }),
  })
  .openapi('CreateWebhookEndpoint');

export const UpdateWebhookEndpointBody = z
  .object({
    url: url.optional().openapi({ description: 'A new receiver address (same rules as on create).', pattern: HTTPS_URL_PATTERN }),
    description: description.openapi({ description: 'A new label; `""` or null clears it.' }),
    event_types: eventTypes.optional().openapi({ description: 'Replaces the subscription list.' }),
    enabled: z
      .boolean({ error: 'enabled must be true or false.' })
      .optional()
      .openapi({ description: '`false` pauses deliveries (scheduled retries are dropped); `true` re-enables a paused or disabled endpoint and resets its failure count.' }),
  })
  .openapi('UpdateWebhookEndpoint');

export const TestWebhookEventBody = z
  .object({
    type: z
      .string({ error: 'type must be a string.' })
      .max(100, { error: 'type is at most 100 characters.' })
      .nullable()
      .optional()
      .openapi({ description: 'Event type to simulate; default `order.completed`, which an unrecognised type also falls back to.', example: 'ticket.issued' }),
  })
  .openapi('SendTestWebhookEvent');

const endpointMissing = errorResponse('No webhook endpoint with that id in the organisation (test keys see only test endpoints).');
const writeConflict = errorResponse('A request with this Idempotency-Key is still running.');
const keyReused = errorResponse('Idempotency-Key reused with a different request.');
const WebhookEndpointList = listOf(WebhookEndpointSchema, 'WebhookEndpointList');

/** The endpoint as the API shows it: `secret` only where the service returned it (the create response). */
function endpointJson(endpoint: Parameters<typeof toApiJson>[1]) {
  const json = toApiJson(gen.webhooks.WebhookEndpointSchema, endpoint);
  if (json.secret === null) delete json.secret;
  return json;
}

// The spec lists a missing `url` under 400 parameter_invalid for this endpoint (D78).
const urlInvalidWhenMissing = { invalidWhenMissing: (param: string) => param === 'url' };

export const webhookEndpointOperations = [
  defineOperation({
    method: 'get',
    path: '/webhook_endpoints',
    operationId: 'listWebhookEndpoints',
    tag: 'Webhook endpoints',
    summary: 'List webhook endpoints',
    description: "Every endpoint of the organisation in one page, oldest first (`has_more` always false). Test keys see test endpoints only. Scope `webhooks:manage`.",
    scopes: manage,
    responses: { 200: jsonResponse('All endpoints.', WebhookEndpointList) },
    handler: async ({ ctx, deps }) => ok(singlePage((await deps.clients.webhooks.listEndpoints({}, ctx)).data.map(endpointJson))),
  }),
  defineOperation({
    method: 'post',
    path: '/webhook_endpoints',
    operationId: 'createWebhookEndpoint',
    tag: 'Webhook endpoints',
    summary: 'Create a webhook endpoint',
    description: 'Registers a receiver and returns it with its signing `secret`, shown this once. At most 20 endpoints per organisation. Scope `webhooks:manage`.',
    scopes: manage,
    body: CreateWebhookEndpointBody,
    bodyOptions: urlInvalidWhenMissing,
    responses: {
      201: jsonResponse('The endpoint, with its secret.', WebhookEndpointSchema),
      400: errorResponse('Missing or invalid url (not https, a private, loopback or internal address), an empty or unknown event type, a bad mode or description, or 20 endpoints already.'),
      409: writeConflict,
      422: keyReused,
    },
    handler: async ({ body, ctx, deps }) => {
      const endpoint = await deps.clients.webhooks.createEndpoint(
        { url: body.url, eventTypes: body.event_types ?? [], description: body.description ?? undefined, mode: body.mode ?? '' },
        ctx,
      );
      return created(endpointJson(endpoint));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/webhook_endpoints/{id}',
    operationId: 'retrieveWebhookEndpoint',
    tag: 'Webhook endpoints',
    summary: 'Retrieve a webhook endpoint',
    description: 'Scope `webhooks:manage`.',
    scopes: manage,
    id: endpointId,
    responses: { 200: jsonResponse('The endpoint (its secret only as `secret_hint`).', WebhookEndpointSchema), 404: endpointMissing },
    handler: async ({ id, ctx, deps }) => ok(endpointJson(await deps.clients.webhooks.getEndpoint({ id: BigInt(id) }, ctx))),
  }),
  defineOperation({
    method: 'patch',
    path: '/webhook_endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    tag: 'Webhook endpoints',
    summary: 'Update a webhook endpoint',
    description: 'Changes the fields sent; the rest stay. Scope `webhooks:manage`.',
    scopes: manage,
    id: endpointId,
    body: UpdateWebhookEndpointBody,
    responses: {
      200: jsonResponse('The endpoint after the change.', WebhookEndpointSchema),
      400: errorResponse('Invalid url or unknown event type, or a bad field.'),
      404: endpointMissing,
      409: writeConflict,
      422: keyReused,
    },
    handler: async ({ id, body, ctx, deps }) => {
      const endpoint = await deps.clients.webhooks.updateEndpoint(
        {
          id: BigInt(id),
          url: body.url,
          description: body.description === null ? '' : body.description,
          eventTypes: body.event_types ?? [],
          setEventTypes: body.event_types !== undefined,
          enabled: body.enabled,
        },
        ctx,
      );
      return ok(endpointJson(endpoint));
    },
  }),
  defineOperation({
    method: 'delete',
    path: '/webhook_endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    tag: 'Webhook endpoints',
    summary: 'Delete a webhook endpoint',
    description: 'Removes the endpoint; all its deliveries stop at once. Scope `webhooks:manage`.',
    scopes: manage,
    id: endpointId,
    responses: { 204: emptyResponse('Deleted; no body.'), 400: errorResponse('Idempotency-Key is not 1 to 255 characters.'), 404: endpointMissing, 409: writeConflict, 422: keyReused },
    handler: async ({ id, ctx, deps }) => {
      await deps.clients.webhooks.deleteEndpoint({ id: BigInt(id) }, ctx);
      return noContent();
    },
  }),
  defineOperation({
    method: 'post',
    path: '/webhook_endpoints/{id}/test',
    operationId: 'sendTestWebhookEvent',
    tag: 'Webhook endpoints',
    summary: 'Send a test event',
    description:
      "Sends a signed sample event (`livemode` false) to the endpoint now, once, never retried, and answers with the delivery when the receiver returned a 2xx. Test sends do not count towards the endpoint's health. Scope `webhooks:manage`.",
    scopes: manage,
    id: endpointId,
    body: TestWebhookEventBody,
    responses: {
      200: jsonResponse('The delivery (`status` `succeeded`, `attempt` 1, `manual` true).', WebhookDeliverySchema),
      400: errorResponse('A bad type.'),
      404: endpointMissing,
      409: writeConflict,
      422: keyReused,
      500: errorResponse('The receiver did not answer with a 2xx in time, could not be reached, or its address is refused (test_event_failed); or any other server-side failure.'),
    },
    handler: async ({ id, body, ctx, deps }) => {
      // The receiver alone may take its full 10 seconds.
      const delivery = await deps.clients.webhooks.sendTestEvent({ id: BigInt(id), type: body.type ?? undefined }, ctx, { deadlineMs: TEST_SEND_DEADLINE_MS });
      return ok(toApiJson(gen.webhooks.WebhookDeliverySchema, delivery));
    },
  }),
];
