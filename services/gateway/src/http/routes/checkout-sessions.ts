/** Checkout sessions, served by the orders service (which holds tickets through inventory). */
import { createHash, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { ApiError, customerMessage, gen, holdFailed, nameBasedUuid, ServiceUnanswered, toApiJson, withoutDeadline } from '@partner-api/shared';
import type { AbandonedRequests } from '../abandoned-requests';
import { clientGone } from '../middleware/request-context';
import { canonicalJson } from '../middleware/idempotency';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { CheckoutSessionSchema, EMAIL_PATTERN } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { created, defineOperation, ok } from '../operation';
import { uuidId } from '../path-ids';

const positiveInt = (name: string) =>
  z
    .number({ error: `${name} must be an integer.` })
    .int({ error: `${name} must be an integer.` })
    .positive({ error: `${name} must be positive.` })
    // An integer past 2^53 − 1 is refused as not an integer (D391).
    .openapi({ maximum: Number.MAX_SAFE_INTEGER });

export const CreateCheckoutSessionBody = z
  .object({
    event_id: z
      .union([positiveInt('event_id'), z.string().min(1).max(200)], { error: 'event_id must be an event id or slug.' })
      .openapi({ description: 'The event, by id or slug.', example: 42 }),
    items: z
      .array(
        z.object({
          ticket_type_id: positiveInt('ticket_type_id'),
          quantity: z.number({ error: 'quantity must be an integer from 1 to 100.' }).int({ error: 'quantity must be an integer from 1 to 100.' }).min(1, { error: 'quantity must be an integer from 1 to 100.' }).max(100, { error: 'quantity must be an integer from 1 to 100.' }),
          pool_id: positiveInt('pool_id').optional().openapi({ description: 'Needed only for a ticket type sold from several pools.' }),
        }),
        { error: 'items must be a list of { ticket_type_id, quantity }.' },
      )
      .min(1, { error: 'items must hold at least one line.' })
      .max(20, { error: 'items may hold at most 20 lines.' }),
    customer: z
      .object({
        email: z.email({ error: 'customer.email must be an email address.' }).max(254).nullable().optional().openapi({ pattern: EMAIL_PATTERN }),
        first_name: z.string().max(100).nullable().optional(),
        last_name: z.string().max(100).nullable().optional(),
        phone: z.string().max(40).nullable().optional(),
      })
      .optional()
      .openapi({ description: 'Pre-fills the hosted checkout.' }),
    coupon_code: z.string().min(1).max(64).optional(),
    metadata: z
      .record(
        z.string().min(1).max(40, { error: 'metadata keys are at most 40 characters.' }),
        z.union([z.string().max(500, { error: 'metadata values are at most 500 characters.' }), z.number(), z.boolean()], {
          error: 'metadata values must be strings, numbers or booleans.',
        }),
      )
      .refine((value) => Object.keys(value).length <= 20, { error: 'metadata holds at most 20 keys.' })
      .transform((value) => Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)])))
      .optional()
      .openapi({ description: 'Up to 20 string pairs; numbers and booleans become strings.', maxProperties: 20 }),
  })
  .openapi('CreateCheckoutSession');

/**
 * The session id, fixed before the first attempt: the same API key,
 * Idempotency-Key and body always name the same session (and so the same
 * hold in inventory), so a retry after a lost answer finds or finishes it
 * instead of holding twice. Without a key every call is its own. A uuid
 * (version 8, the name-based layout of RFC 9562) from SHA-256.
 */
export function checkoutSessionId(keyId: number, idempotencyKey: string | undefined, body: unknown): string {
  if (idempotencyKey === undefined) return randomUUID();
  return nameBasedUuid(createHash('sha256').update(`checkout_session\n${keyId}\n${idempotencyKey}\n${canonicalJson(body)}`).digest());
}

/** Inventory or orders failed without a refusal: the session may exist all the same. */
const outcomeUnknown = (error: unknown) => error instanceof ServiceUnanswered || !(error instanceof ApiError) || error.httpStatus >= 500;

/**
 * A session asked for without an Idempotency-Key whose buyer never got the
 * answer (D444): the client left before it was written, or the call failed
 * with its outcome unknown. Nobody can ever find such a session, so its
 * hold goes back to stock at once instead of after 15 minutes. The abandon
 * is sent only once the create has settled, so it always comes after the
 * session it ends. With a key the session is kept: the retry the key
 * promises finds it.
 */
function abandonUndelivered(res: Response, creating: Promise<unknown>, abandon: () => Promise<unknown>, abandoned: AbandonedRequests): void {
  let created = false;
  let undelivered = false;
  let sent = false;
  const abandonOnce = () => {
    if (sent) return;
    sent = true;
    void abandon().then(
      () => abandoned.count('released'),
      () => abandoned.count('release_failed'),
    );
  };
  const leave = () => {
    undelivered = true;
    if (created) abandonOnce();
  };
  if (clientGone(res)) leave();
  else res.once('close', () => !res.writableFinished && leave());
  creating.then(
    () => {
      created = true;
      if (undelivered) abandonOnce();
    },
    (error: unknown) => {
      if (outcomeUnknown(error)) abandonOnce();
    },
  );
}

export const checkoutSessionOperations = [
  defineOperation({
    method: 'post',
    path: '/checkout_sessions',
    operationId: 'createCheckoutSession',
    critical: true,
    // Any failure that is not a refusal, the gateway's own Redis included: nothing was sold, and a retry with the same key is safe.
    failure: holdFailed(),
    tag: 'Checkout sessions',
    summary: 'Create a checkout session',
    description: 'Live keys hold the tickets for about 15 minutes; test keys validate and price in full but hold nothing.',
    scopes: ['orders:write'],
    body: CreateCheckoutSessionBody,
    responses: {
      201: jsonResponse('The open session (or the dry run for a test key).', CheckoutSessionSchema),
      400: errorResponse('A parameter is missing or invalid.'),
      404: errorResponse('The event or a ticket type is not in the organisation.'),
      409: errorResponse('A request with this Idempotency-Key is still running.'),
      422: errorResponse('Not on sale, unavailable, over the limits, seated, or Idempotency-Key reused.'),
    },
    handler: async ({ body, ctx, deps, req, res }) => {
      const idempotencyKey = req.header('Idempotency-Key');
      const request = {
        sessionId: checkoutSessionId(ctx.keyId, idempotencyKey, req.body),
        eventIdOrSlug: String(body.event_id),
        items: body.items.map((item) => ({
          ticketTypeId: BigInt(item.ticket_type_id),
          quantity: item.quantity,
          poolId: item.pool_id === undefined ? undefined : BigInt(item.pool_id),
        })),
        customer: body.customer ? customerMessage(body.customer) : undefined,
        couponCode: body.coupon_code,
        metadata: body.metadata ?? {},
      };
      // Orders down or its answer lost: the session id is fixed, so a retry with the same key finds or finishes it (see `failure`).
      const creating = deps.clients.orders.createCheckoutSession(request, ctx);
      if (idempotencyKey === undefined) {
        abandonUndelivered(res, creating, () => deps.clients.orders.abandonCheckoutSession({ id: request.sessionId }, withoutDeadline(ctx)), deps.abandoned);
      } else {
        res.once('close', () => {
          if (!res.writableFinished) deps.abandoned.count('kept');
        });
      }
      const session = await creating;
      return created(toApiJson(gen.orders.CheckoutSessionSchema, session));
    },
  }),
  defineOperation({
    method: 'get',
    path: '/checkout_sessions/{id}',
    operationId: 'retrieveCheckoutSession',
    tag: 'Checkout sessions',
    summary: 'Retrieve a checkout session',
    description: 'The session with its status (`open`, `expired` or `completed`) and, once paid, its `order_id`. Scope `orders:read`.',
    scopes: ['orders:read'],
    id: uuidId('checkout session', 'Checkout session id (uuid).'),
    responses: { 200: jsonResponse('The session.', CheckoutSessionSchema), 404: errorResponse('No such session in the organisation.') },
    handler: async ({ id, ctx, deps }) => ok(toApiJson(gen.orders.CheckoutSessionSchema, await deps.clients.orders.getCheckoutSession({ id }, ctx))),
  }),
];
