/**
 * Sample payloads for test sends: one per event type, in the body shape
 * live deliveries have (`livemode` false), with objects built from the same
 * message types the services emit, so a partner's parser sees every field
 * it will see for real. Ids are recognisably fake (`evt_test_…`, event 1001).
 */
import { create, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { buildEvent, formatTimestamp, gen, orderingKey, orderingUpdatedAt, randomBase62, toApiJson, type ApiJson, type DomainEvent, type EventType } from '@partner-api/shared';

export const DEFAULT_TEST_EVENT_TYPE: EventType = 'order.completed';

const json = <S extends DescMessage>(schema: S, init: MessageInitShape<S>) => toApiJson(schema, create(schema, init));

/** Fields that differ from the base sample (the base objects are type-checked; overrides name only a few fields). */
type Overrides = Record<string, unknown>;

function sampleTicket(at: string, overrides: Overrides = {}): MessageInitShape<typeof gen.tickets.TicketSchema> {
  const base: MessageInitShape<typeof gen.tickets.TicketSchema> = {
    object: 'ticket',
    id: 5001n,
    barcode: 'TEST0000000000000000001',
    orderId: '00000000-0000-4000-8000-000000000001',
    eventId: 1001n,
    ticketTypeId: 2001n,
    poolId: 3001n,
    ticketTypeName: 'General Admission',
    attendee: { firstName: 'Alex', lastName: 'Sample', email: 'alex.sample@example.com' },
    price: '89.50',
    status: 'valid',
    comp: false,
    createdAt: at,
    updatedAt: at,
  };
  return { ...base, ...overrides } as MessageInitShape<typeof gen.tickets.TicketSchema>;
}

function sampleOrder(at: string, overrides: Overrides = {}) {
  const base: MessageInitShape<typeof gen.orders.OrderSchema> = {
    object: 'order',
    id: '00000000-0000-4000-8000-000000000001',
    eventId: 1001n,
    status: 'completed',
    customer: { email: 'alex.sample@example.com', firstName: 'Alex', lastName: 'Sample', phone: '+61400000000' },
    currency: 'AUD',
    subtotal: '179.00',
    totalFees: '9.00',
    discount: '0.00',
    total: '179.00',
    refundedAmount: '0.00',
    paymentMethod: 'stripe',
    checkoutSessionId: '00000000-0000-4000-8000-000000000001',
    salesChannel: 'api',
    metadata: { partner_order_ref: 'TEST-1001' },
    tickets: [sampleTicket(at), sampleTicket(at, { id: 5002n, barcode: 'TEST0000000000000000002' })],
    createdAt: at,
    completedAt: at,
    updatedAt: at,
  };
  return json(gen.orders.OrderSchema, { ...base, ...overrides } as MessageInitShape<typeof gen.orders.OrderSchema>);
}

function sampleEvent(at: string, overrides: Overrides = {}) {
  const base: MessageInitShape<typeof gen.inventory.EventSchema> = {
    object: 'event',
    id: 1001n,
    slug: 'sample-event',
    title: 'Sample Event',
    summary: 'A test event from the webhook test endpoint.',
    status: 'published',
    startsAt: '2027-03-14T09:00:00Z',
    endsAt: '2027-03-14T13:00:00Z',
    timezone: 'Australia/Melbourne',
    doors: '7:30pm',
    url: 'https://tickets.example.com/events/sample-event',
    soldOut: false,
    onSaleAt: '2026-12-01T00:00:00Z',
    venue: {
      object: 'venue',
      id: 4001n,
      name: 'Sample Hall',
      slug: 'sample-hall',
      address: { line1: '1 Sample Street', locality: 'Melbourne', state: 'VIC', postalCode: '3000', country: 'AU', formatted: '1 Sample Street, Melbourne VIC 3000' },
    },
    ticketing: { currency: 'AUD', minPrice: '89.50', maxPrice: '149.00', ticketsRemaining: 1180n },
    categories: ['music'],
    createdAt: at,
    updatedAt: at,
  };
  return json(gen.inventory.EventSchema, { ...base, ...overrides } as MessageInitShape<typeof gen.inventory.EventSchema>);
}

type Sample = { object: ApiJson; extra?: Record<string, ApiJson> };

const SAMPLES: Record<EventType, (at: string) => Sample> = {
  'order.completed': (at) => ({ object: sampleOrder(at) }),
  'order.refunded': (at) => ({
    object: sampleOrder(at, { status: 'partially_refunded', refundedAmount: '89.50' }),
    extra: { refunded_ticket_ids: [5002] },
  }),
  'ticket.issued': (at) => ({ object: json(gen.tickets.TicketSchema, sampleTicket(at)) }),
  'ticket.transferred': (at) => ({
    object: json(gen.tickets.TicketSchema, sampleTicket(at, { barcode: 'TEST0000000000000000003', attendee: { firstName: 'Sam', lastName: 'Example', email: 'sam.example@example.com' } })),
    extra: { previous_attendee_email: 'alex.sample@example.com' },
  }),
  'ticket.checked_in': (at) => ({ object: json(gen.tickets.TicketSchema, sampleTicket(at, { status: 'checked_in', checkedInAt: at })) }),
  'event.published': (at) => ({ object: sampleEvent(at) }),
  'event.updated': (at) => ({ object: sampleEvent(at, { doors: '7:00pm' }), extra: { changed_fields: ['doors'] } }),
  'event.cancelled': (at) => ({ object: sampleEvent(at, { status: 'cancelled' }) }),
  'event.sold_out': (at) => ({ object: sampleEvent(at, { soldOut: true, ticketing: { currency: 'AUD', minPrice: '89.50', maxPrice: '149.00', ticketsRemaining: 0n } }) }),
  'ticket_type.low_inventory': () => ({
    object: json(gen.inventory.TicketTypeSchema, {
      object: 'ticket_type',
      id: 2001n,
      poolId: 3001n,
      poolName: 'General Admission',
      eventId: 1001n,
      name: 'General Admission',
      price: '89.50',
      bookingFee: '4.50',
      currency: 'AUD',
      feesIncluded: true,
      gstApplies: true,
      minPerOrder: 1,
      maxPerOrder: 10,
      status: 'on_sale',
      available: 120n,
      capacity: 1200n,
      seated: false,
    }),
    extra: { threshold: 120 },
  }),
  'waitlist.released': () => ({ object: json(gen.inventory.WaitlistReleaseSchema, { object: 'waitlist_release', eventId: 1001n, poolId: 3001n, releasedCount: 25n }) }),
};

const isEventType = (type: string): type is EventType => Object.prototype.hasOwnProperty.call(SAMPLES, type);

/** The type a test send uses: the one asked for if it is a known type, otherwise `order.completed` (the spec's fallback). */
export const testEventType = (requested: string | undefined): EventType => (requested !== undefined && isEventType(requested) ? requested : DEFAULT_TEST_EVENT_TYPE);

/** A test event of `type` for the organisation, `livemode` false, with an id that says it is a test. */
export function sampleDomainEvent(type: EventType, organisationId: number, now = new Date()): DomainEvent {
  const sample = SAMPLES[type](formatTimestamp(now));
  const event = { ...buildEvent(type, { organisationId, livemode: false }, sample.object, sample.extra, now), id: `evt_test_${randomBase62(20)}` };
  // Shaped like a live event's `ordering` (D265), so a receiver's stale-event check runs on test sends too; a sample is its object's first event.
  return { ...event, ordering: { key: orderingKey(sample.object, 'event:1001'), sequence: 1, updated_at: orderingUpdatedAt(event) } };
}
