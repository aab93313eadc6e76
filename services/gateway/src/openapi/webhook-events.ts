/**
 * The webhook events of the spec's event table as OpenAPI 3.1 `webhooks`,
 * one body schema per type, so generated clients can type event bodies as
 * a union discriminated by `type` instead of writing them by hand.
 */
import { API_VERSION, EVENT_TYPES, type EventType } from '@partner-api/shared';
import { EventSchema, OrderSchema, TicketSchema, TicketTypeSchema } from './schemas';
import { z } from './zod';

const WaitlistReleaseSchema = z
  .object({
    object: z.literal('waitlist_release'),
    event_id: z.number().int(),
    pool_id: z.number().int(),
    released_count: z.number().int(),
  })
  .openapi('WaitlistRelease');

const EventOrderingSchema = z
  .object({
    key: z.string().openapi({ example: 'ticket:1001', description: 'The object the event is about.' }),
    sequence: z.number().int().openapi({ description: "Counts this object's events in commit order." }),
    updated_at: z.string().openapi({ example: '2026-11-22T09:30:00Z' }),
  })
  .openapi('EventOrdering');

/** What `data` holds for each type: the object and the extra keys of the spec's table. */
const EVENT_DATA: Record<EventType, z.ZodRawShape> = {
  'order.completed': { object: OrderSchema },
  'order.refunded': { object: OrderSchema, refunded_ticket_ids: z.array(z.number().int()) },
  'ticket.issued': { object: TicketSchema },
  'ticket.transferred': { object: TicketSchema, previous_attendee_email: z.string() },
  'ticket.checked_in': { object: TicketSchema },
  'event.published': { object: EventSchema },
  'event.updated': { object: EventSchema, changed_fields: z.array(z.string()) },
  'event.cancelled': { object: EventSchema },
  'event.sold_out': { object: EventSchema },
  'ticket_type.low_inventory': { object: TicketTypeSchema, threshold: z.number().int() },
  'waitlist.released': { object: WaitlistReleaseSchema },
};

/** `order.completed` → `OrderCompletedEvent`. */
const componentName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;

function eventBodySchema(type: EventType) {
  return z
    .object({
      id: z.string().openapi({ example: 'evt_9fJ2kLmQ4rT7vX1zB3nDa8Qe', description: 'Equals the `Service-Event-Id` header; stable across retries.' }),
      object: z.literal('event'),
      type: z.literal(type),
      api_version: z.string().openapi({ example: API_VERSION }),
      created: z.number().int().openapi({ description: 'Unix seconds when the event happened.' }),
      livemode: z.boolean(),
      organisation_id: z.number().int(),
      data: z.object(EVENT_DATA[type]),
      ordering: EventOrderingSchema.optional(),
    })
    .openapi(componentName(type));
}

/** The headers every delivery carries besides the signature (the spec's delivery headers). */
export const DELIVERY_HEADERS = z.object({
  'Service-Event-Id': z.string().openapi({ description: 'The event id (`evt_…`); receivers deduplicate on it.' }),
  'Service-Event-Type': z.string().openapi({ description: 'The event type.' }),
  'Service-Delivery-Attempt': z.string().openapi({ description: '1 for the first try; counts up on retries and resends.' }),
});

/** Every event type with its body schema. */
export const WEBHOOK_EVENTS = EVENT_TYPES.map((type) => ({ type, schema: eventBodySchema(type) }));
