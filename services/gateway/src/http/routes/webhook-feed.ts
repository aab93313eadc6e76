/**
 * The event feed, replay and delivery log (tag `beta`, scope
 * `webhooks:manage`), served by the webhooks service: additive operations
 * beside the spec's webhook endpoints. Replays are limited per
 * organisation, so a storm of them cannot flood receivers (D286).
 */
import { EVENT_TYPES, gen, toApiJson } from '@partner-api/shared';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { listOf, WebhookDeliverySchema, WebhookEventSchema, WebhookReplaySchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { defineListOperation } from '../list-operation';
import { defineOperation } from '../operation';
import { PaginationQuery } from '../pagination';
import { integerId } from '../path-ids';
import { isoTime } from './catalog';

/** Replays an organisation may ask for in a 60-second window, over all its keys. */
export const REPLAYS_PER_MINUTE = 5;

const manage = ['webhooks:manage'] as const;
const endpointId = integerId('webhook endpoint', 'Webhook endpoint id.', '12');
const endpointMissing = errorResponse('No webhook endpoint with that id in the organisation (test keys see only test endpoints).');

const EVENT_ID_RULE = 'an event id (evt_ followed by letters, digits and underscores; test sends are evt_test_…)';
const eventId = z.string().regex(/^evt_[A-Za-z0-9_]{1,64}$/, { error: `Expected ${EVENT_ID_RULE}.` });

export const WebhookEventListQuery = PaginationQuery.extend({
  since: z
    .union([isoTime, eventId], { error: `since must be an ISO-8601 time such as 2026-10-18T00:00:00Z or ${EVENT_ID_RULE}.` })
    .optional()
    .openapi({
      description: 'A time: events created at or after it. An event id: the events stored after it (the last one you processed). At most 30 days back either way.',
      example: '2026-11-20T00:00:00Z',
    }),
  type: z
    .enum(EVENT_TYPES, { error: `type must be one of ${EVENT_TYPES.join(', ')}.` })
    .optional()
    .openapi({ description: 'Only events of this type.', example: 'order.completed' }),
});

export const DeliveryLogQuery = PaginationQuery.extend({
  event_id: eventId.optional().openapi({ description: 'Only the attempts of this event.', example: 'evt_4fJ2kLmQ4rT7vX1zB3nD9pQs' }),
  status: z
    .enum(['pending', 'succeeded', 'failed', 'cancelled'], { error: 'status must be one of pending, succeeded, failed, cancelled.' })
    .optional()
    .openapi({ description: 'Only attempts with this status (`pending`: scheduled or being sent).' }),
});

export const ReplayBody = z
  .object({
    since: isoTime.openapi({ description: 'Re-send what the endpoint missed of the events created at or after this time (at most 30 days back; not in the future).' }),
  })
  .openapi('ReplayWebhookEndpoint');

export const webhookFeedOperations = [
  defineListOperation({
    path: '/webhook_events',
    operationId: 'listWebhookEvents',
    tag: 'beta',
    summary: 'List webhook events',
    description:
      "The organisation's events of the last 30 days, oldest first in the order they were stored, each exactly as its deliveries send it. Live keys see live events, test keys test events. An event shows up once every write that began before it has finished, usually at once. Delivery order is not guaranteed, and neither is this order the order things happened: compare `ordering.sequence` per object. Scope `webhooks:manage`.",
    scopes: manage,
    query: WebhookEventListQuery,
    responses: {
      200: jsonResponse('A page of events.', listOf(WebhookEventSchema, 'WebhookEventList')),
      400: errorResponse('Bad since (not a time, or an event id not among the last 30 days of events), type, limit or cursor.'),
    },
    filters: ({ query }) => ({ since: query.since, type: query.type }),
    fetchJson: ({ query, ctx, deps }, page) => deps.clients.webhooks.listEvents({ since: query.since, type: query.type, page }, ctx),
  }),
  defineOperation({
    method: 'post',
    path: '/webhook_endpoints/{id}/replay',
    operationId: 'replayWebhookEndpoint',
    tag: 'beta',
    summary: 'Replay missed events to an endpoint',
    description: `Queues, for the endpoint, one delivery of every event since \`since\` that it subscribes to and did not receive: no delivery succeeded and none is on its way. Each is an ordinary delivery (signed, retried by the schedule, \`Service-Delivery-Attempt\` counting on); two replays never queue one event twice. The endpoint must be enabled. At most ${REPLAYS_PER_MINUTE} replays a minute per organisation. Scope \`webhooks:manage\`.`,
    scopes: manage,
    id: endpointId,
    body: ReplayBody,
    organisationRateLimit: REPLAYS_PER_MINUTE,
    responses: {
      202: jsonResponse('The replay, with how many missed events it queued.', WebhookReplaySchema),
      400: errorResponse('Missing or bad since (not a time, or in the future).'),
      404: endpointMissing,
      409: errorResponse('The endpoint is paused or disabled (endpoint_disabled): enable it first; or a request with this Idempotency-Key is still running.'),
      422: errorResponse('Idempotency-Key reused with a different request.'),
    },
    handler: async ({ id, body, ctx, deps }) => ({
      status: 202,
      json: toApiJson(gen.webhooks.WebhookReplaySchema, await deps.clients.webhooks.replayEndpoint({ id: BigInt(id), since: body.since }, ctx)),
    }),
  }),
  defineListOperation({
    path: '/webhook_endpoints/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'beta',
    summary: "List an endpoint's delivery attempts",
    description: 'Every attempt to deliver to the endpoint, newest first, with its status, response code, duration and `failure_reason`. Scope `webhooks:manage`.',
    scopes: manage,
    id: endpointId,
    query: DeliveryLogQuery,
    responses: {
      200: jsonResponse('A page of delivery attempts.', listOf(WebhookDeliverySchema, 'WebhookDeliveryList')),
      400: errorResponse('Bad event_id, status, limit or cursor.'),
      404: endpointMissing,
    },
    filters: ({ id, query }) => ({ endpoint: id, event_id: query.event_id, status: query.status }),
    fetch: ({ id, query, ctx, deps }, page) => deps.clients.webhooks.listDeliveries({ id: BigInt(id), eventId: query.event_id, status: query.status, page }, ctx),
    toJson: (delivery) => toApiJson(gen.webhooks.WebhookDeliverySchema, delivery),
  }),
];
