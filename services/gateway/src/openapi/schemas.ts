/** Response objects of the API as zod schemas: the source of the OpenAPI document. */
import { API_ERRORS, API_VERSION } from '@partner-api/shared';
import { z } from './zod';

/**
 * A field that holds a named object or null. `.nullable()` on a registered
 * schema makes the component itself nullable, which generated clients turn
 * into a second model; a union keeps the component an object and puts the
 * null on the reference (`anyOf: [{$ref}, {type: null}]`).
 */
const nullableRef = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/**
 * Rules the gateway checks that the generator cannot see, written out for
 * the document (D391). `EMAIL_PATTERN` is zod's email rule, the one `z.email()`
 * applies: plain ASCII addresses (no `!`, `#` or other rare RFC 5321 local
 * characters, no internationalised domains). `ISO_TIME` is the shape of
 * a time parameter: a date, or a date and time with a zone.
 */
export const EMAIL_PATTERN = z.regexes.email.source;
export const ISO_TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d))?$/;
/** An absolute https:// address without a user name or password (the scheme in any case, as URLs have it). */
export const HTTPS_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]://[^/?#@\\s]+([/?#][^\\s]*)?$';

const timestamp = z.string().openapi({ example: '2026-11-22T09:30:00Z', description: 'ISO-8601 UTC' });
const money = z.string().regex(/^-?\d+\.\d{2}$/).openapi({ example: '89.50', description: 'Decimal dollars, AUD' });

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      type: z.enum(['authentication_error', 'permission_error', 'not_found_error', 'invalid_request_error', 'conflict_error', 'rate_limit_error', 'api_error']),
      code: z.enum(Object.keys(API_ERRORS) as [string, ...string[]]),
      message: z.string(),
      param: z.string().nullable(),
      request_id: z.string(),
      doc_url: z.string().url(),
    }),
  })
  .openapi('Error');

export const ApiKeyInfoSchema = z
  .object({
    object: z.literal('api_key_info'),
    organisation: z.object({ id: z.number().int(), name: z.string(), slug: z.string() }),
    key: z.object({
      prefix: z.string().openapi({ example: 'svc_live_AbC1' }),
      mode: z.enum(['live', 'test']),
      scopes: z.array(z.string()),
    }),
    livemode: z.boolean(),
    api_version: z.string().openapi({ example: API_VERSION }),
  })
  .openapi('ApiKeyInfo');

export const VenueSchema = z
  .object({
    object: z.literal('venue'),
    id: z.number().int(),
    name: z.string(),
    slug: z.string(),
    address: z.object({
      line1: z.string(),
      line2: z.string().nullable(),
      locality: z.string(),
      state: z.string(),
      postal_code: z.string(),
      country: z.string().openapi({ example: 'AU' }),
      formatted: z.string(),
    }),
    lat: z.number().nullable(),
    lng: z.number().nullable(),
    url: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .openapi('Venue');

export const EventSchema = z
  .object({
    object: z.literal('event'),
    id: z.number().int(),
    slug: z.string(),
    title: z.string(),
    summary: z.string().nullable(),
    description: z.string().nullable(),
    status: z.enum(['published', 'draft', 'pending_review', 'cancelled', 'ended']),
    starts_at: timestamp,
    ends_at: timestamp.nullable(),
    timezone: z.string().openapi({ example: 'Australia/Melbourne' }),
    doors: z.string().nullable().openapi({ example: '7:00pm' }),
    url: z.string(),
    image_url: z.string().nullable(),
    sold_out: z.boolean(),
    on_sale_at: timestamp.nullable(),
    venue: nullableRef(VenueSchema),
    ticketing: z.object({
      currency: z.literal('AUD'),
      min_price: money.nullable(),
      max_price: money.nullable(),
      tickets_remaining: z.number().int().nullable(),
    }),
    categories: z.array(z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Event');

export const TicketTypeSchema = z
  .object({
    object: z.literal('ticket_type'),
    id: z.number().int(),
    pool_id: z.number().int(),
    pool_name: z.string(),
    event_id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    price: money.openapi({ description: 'Fee-inclusive price per ticket.' }),
    booking_fee: money.openapi({ description: 'Informational part of `price`.' }),
    currency: z.literal('AUD'),
    fees_included: z.literal(true),
    gst_applies: z.boolean(),
    min_per_order: z.number().int(),
    max_per_order: z.number().int(),
    status: z.enum(['on_sale', 'not_yet_on_sale', 'sale_ended', 'sold_out', 'hidden']),
    sale_starts_at: timestamp.nullable(),
    sale_ends_at: timestamp.nullable(),
    available: z.number().int().nullable().openapi({ description: 'Null means unlimited.' }),
    capacity: z.number().int().nullable().openapi({ description: 'Null means unlimited.' }),
    seated: z.boolean(),
  })
  .openapi('TicketType');

/** The list envelope around objects of one type. */
export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable().openapi({ description: 'Opaque; pass back as `cursor`.' }),
    })
    .openapi(name);
}

const CustomerSchema = z
  .object({
    email: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .openapi('Customer');

export const CheckoutSessionSchema = z
  .object({
    object: z.literal('checkout_session'),
    id: z.string().uuid().nullable().openapi({ description: 'Null for test-key dry runs; the order gets the same id once paid.' }),
    status: z.enum(['open', 'expired', 'completed']),
    livemode: z.boolean(),
    dry_run: z.boolean(),
    event_id: z.number().int(),
    checkout_url: z.string().openapi({ description: 'Hosted checkout address; the public event page for test keys.' }),
    expires_at: timestamp.nullable(),
    currency: z.literal('AUD'),
    subtotal: money,
    total_fees: money,
    discount: money,
    total: money,
    items: z.array(
      z.object({
        ticket_type_id: z.number().int(),
        pool_id: z.number().int(),
        name: z.string(),
        quantity: z.number().int(),
        unit_price: money,
        total: money,
      }),
    ),
    customer: nullableRef(CustomerSchema),
    order_id: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    created_at: timestamp,
  })
  .openapi('CheckoutSession');

export const TicketSchema = z
  .object({
    object: z.literal('ticket'),
    id: z.number().int().openapi({ description: 'Stable identifier; use it as the storage key.' }),
    barcode: z.string().openapi({ description: 'What the QR code encodes. Rotates when the ticket is transferred; not a key.' }),
    order_id: z.string().nullable().openapi({ description: 'Null for comp tickets.' }),
    event_id: z.number().int(),
    ticket_type_id: z.number().int(),
    pool_id: z.number().int(),
    ticket_type_name: z.string().openapi({ description: 'Ticket type name at issue.' }),
    attendee: z.object({ first_name: z.string().nullable(), last_name: z.string().nullable(), email: z.string().nullable() }),
    price: money.openapi({ description: 'Fee-inclusive price paid (`0.00` for comps).' }),
    status: z.enum(['valid', 'checked_in', 'refunded', 'void']),
    comp: z.boolean(),
    seat_label: z.string().nullable(),
    checked_in_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Ticket');

export const CompTicketBatchSchema = z
  .object({
    object: z.literal('comp_ticket_batch'),
    livemode: z.boolean(),
    dry_run: z.boolean().openapi({ description: 'True for test keys: validated and counted, nothing issued, taken or emailed.' }),
    issued: z.number().int().openapi({ description: 'Tickets issued (for a test key: that a live call would issue now).' }),
    failed: z
      .array(z.object({ email: z.string(), reason: z.string().openapi({ description: 'Only `exceeds_stock` today; more reasons may be added.', example: 'exceeds_stock' }) }))
      .openapi({ description: 'Guests that got no ticket, in request order.' }),
    tickets: z.array(TicketSchema).openapi({ description: 'The issued tickets, in request order; empty for test keys.' }),
  })
  .openapi('CompTicketBatch');

export const OrderSchema = z
  .object({
    object: z.literal('order'),
    id: z.string().uuid().openapi({ description: 'For orders created through the API it equals the checkout session id.' }),
    event_id: z.number().int(),
    status: z.enum(['completed', 'partially_refunded', 'refunded']),
    customer: CustomerSchema,
    currency: z.literal('AUD'),
    subtotal: money,
    total_fees: money,
    discount: money,
    total: money,
    refunded_amount: money,
    payment_method: z.enum(['stripe', 'paypal', 'free', 'comp', 'other']),
    checkout_session_id: z.string().nullable(),
    sales_channel: z.enum(['api', 'embed', 'storefront', 'web']),
    channel_origin: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    tickets: z.array(TicketSchema),
    created_at: timestamp,
    completed_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Order');

export const CheckInSchema = z
  .object({
    object: z.literal('check_in'),
    result: z.enum(['checked_in', 'already_checked_in']).openapi({ description: '`checked_in` on the first scan, `already_checked_in` on any later one.' }),
    livemode: z.boolean(),
    dry_run: z.boolean().openapi({ description: 'True for test keys: classified like a live scan, nothing recorded.' }),
    ticket: TicketSchema,
  })
  .openapi('CheckIn');

export const WebhookEndpointSchema = z
  .object({
    object: z.literal('webhook_endpoint'),
    id: z.number().int(),
    url: z.string().openapi({ description: 'Where events are POSTed (HTTPS, public address).', example: 'https://hooks.example.com/partner-api' }),
    description: z.string().nullable().openapi({ description: "The caller's label." }),
    event_types: z.array(z.string()).openapi({ description: 'Subscribed types; `["*"]` means all, including types added later.', example: ['order.completed', 'ticket.issued'] }),
    enabled: z.boolean().openapi({ description: 'Whether deliveries are sent.' }),
    status: z
      .enum(['enabled', 'failing', 'disabled'])
      .openapi({ description: '`failing` after at least one consecutive failed delivery; `disabled` when paused through the API (`disabled_reason` `paused`) or disabled automatically.' }),
    mode: z.enum(['live', 'test']).openapi({ description: 'Live endpoints receive real activity; test endpoints only test events sent to them.' }),
    consecutive_failures: z.number().int().openapi({ description: 'Resets on success.' }),
    disabled_at: timestamp.nullable(),
    disabled_reason: z
      .string()
      .nullable()
      .openapi({ description: '`paused` (PATCH `enabled` false), `consecutive_failures` (50 failed deliveries in a row) or `failing_for_3_days` (failing 3 days with at least 5 in a row); more may be added.' }),
    last_success_at: timestamp.nullable(),
    last_failure_at: timestamp.nullable(),
    secret_hint: z.string().openapi({ description: 'The masked signing secret.', example: 'whsec_…x9Qz' }),
    secret: z
      .string()
      .optional()
      .openapi({ description: 'The signing secret, `whsec_` and 32 base62 characters. Only in the create response: store it then.', example: 'whsec_4hQm9Zr2XbV7nK1pL8sT3wY6cF0dJ5gA' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('WebhookEndpoint');

export const WebhookDeliverySchema = z
  .object({
    object: z.literal('webhook_delivery'),
    id: z.number().int(),
    endpoint_id: z.number().int(),
    endpoint_url: z.string(),
    event_id: z.string().openapi({ description: 'The webhook event id (`evt_…`), also sent as `Service-Event-Id`.', example: 'evt_test_9fJ2kLmQ4rT7vX1zB3nD' }),
    event_type: z.string().openapi({ example: 'order.completed' }),
    attempt: z.number().int().openapi({ description: '1 for a test event.' }),
    status: z.string().openapi({
      description: '`succeeded` for a test event that was delivered. The delivery log (beta) also shows `pending` (scheduled or being sent), `failed` and `cancelled`; more values may appear.',
      example: 'succeeded',
    }),
    response_status: z.number().int().nullable().openapi({ description: 'HTTP status the receiver returned.' }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    failure_reason: z
      .enum(['timeout', 'connection_refused', 'connection_error', 'tls', 'address_refused', 'status_3xx', 'status_4xx', 'status_5xx'])
      .nullable()
      .openapi({ description: 'Why a failed attempt failed (beta); null unless `status` is `failed`. More values may appear.', example: 'timeout' }),
    replay_id: z.number().int().nullable().openapi({ description: 'The replay that queued this attempt (beta), or null.' }),
    manual: z.boolean().openapi({ description: 'True for test sends.' }),
    next_retry_at: timestamp.nullable().openapi({ description: 'Null for test events: they are never retried.' }),
    created_at: timestamp,
  })
  .openapi('WebhookDelivery');

export const WebhookEventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_4fJ2kLmQ4rT7vX1zB3nD9pQs' }),
    object: z.literal('event'),
    type: z.string().openapi({ example: 'order.completed' }),
    api_version: z.string().openapi({ example: '2026-10-18' }),
    created: z.number().int().openapi({ description: 'Unix seconds when the event happened.', example: 1795597639 }),
    livemode: z.boolean(),
    organisation_id: z.number().int(),
    data: z.record(z.string(), z.unknown()).openapi({ description: '`object` holds the affected object as the API shows it, plus the extra keys of the event type.' }),
  })
  .openapi('WebhookEvent', { description: 'A webhook event exactly as its deliveries send it (beta).' });

export const WebhookReplaySchema = z
  .object({
    object: z.literal('webhook_replay'),
    id: z.number().int(),
    endpoint_id: z.number().int(),
    since: timestamp.openapi({ description: 'Events created at or after this were considered (never more than 30 days back).' }),
    queued: z.number().int().openapi({ description: 'Missed events queued for delivery by this replay.', example: 4 }),
    created_at: timestamp,
  })
  .openapi('WebhookReplay', { description: 'A request to re-send what an endpoint missed (beta).' });
