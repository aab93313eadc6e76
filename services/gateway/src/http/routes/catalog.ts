/** Catalog endpoints (events, ticket types, venues), served by the inventory service. */
import { gen, toApiJson } from '@partner-api/shared';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { EventSchema, ISO_TIME, listOf, TicketTypeSchema, VenueSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { defineListOperation, singlePage } from '../list-operation';
import { defineOperation, ok } from '../operation';
import { PaginationQuery } from '../pagination';
import { eventRef, integerId } from '../path-ids';

const oneOf = <T extends [string, ...string[]]>(values: T, name: string) =>
  z.enum(values, { error: `${name} must be one of ${values.join(', ')}.` });

const ISO_TIME_RULE = 'Expected an ISO-8601 time such as 2026-10-18T00:00:00Z.';
/** The shape is a pattern, so the document states it (D391); the parse stays as a guard. */
export const isoTime = z
  .string()
  .regex(ISO_TIME, { error: ISO_TIME_RULE })
  .refine((value) => !Number.isNaN(Date.parse(value)), { error: ISO_TIME_RULE })
  .openapi({ example: '2026-10-18T00:00:00Z' });

export const EventListQuery = PaginationQuery.extend({
  status: oneOf(['published', 'draft', 'pending_review', 'cancelled', 'ended', 'all'], 'status')
    .default('published')
    .openapi({ description: 'Filter by status; `all` for every status.' }),
  time: oneOf(['upcoming', 'past', 'all'], 'time')
    .default('upcoming')
    .openapi({ description: '`upcoming` (not yet ended, by start ascending), `past` (ended, by start descending) or `all` (by start ascending).' }),
  q: z.string().max(200).optional().openapi({ description: 'Free-text search over title and summary (word prefixes).' }),
  updated_since: isoTime.optional().openapi({ description: 'Only events changed at or after this time.' }),
});

const EventList = listOf(EventSchema, 'EventList');
const TicketTypeList = listOf(TicketTypeSchema, 'TicketTypeList');
const VenueList = listOf(VenueSchema, 'VenueList');
const eventMissing = errorResponse('No event with that id or slug in the organisation.');

const read = ['events:read'] as const;
const venueId = integerId('venue', 'Venue id.', '3');

export const catalogOperations = [
  defineListOperation({
    path: '/events',
    operationId: 'listEvents',
    tag: 'Catalog',
    summary: 'List events',
    description: "The organisation's events, upcoming by start time unless filtered; `ticketing` carries live availability. Scope `events:read`.",
    scopes: read,
    query: EventListQuery,
    responses: { 200: jsonResponse("A page of the organisation's events.", EventList), 400: errorResponse('Bad filter, limit or cursor.') },
    filters: ({ query }) => ({ status: query.status, time: query.time, q: query.q, updated_since: query.updated_since }),
    fetch: async ({ query, ctx, deps }, page) =>
      deps.clients.inventory.listEvents({ status: query.status, time: query.time, q: query.q, updatedSince: query.updated_since, page }, ctx),
    toJson: (event) => toApiJson(gen.inventory.EventSchema, event),
    // A page this process answered before is asked for by its tag: unchanged, it does not cross gRPC again.
    fetchJson: ({ query, ctx, deps }, page) =>
      deps.pageBodies.fetch(JSON.stringify(['GET /events', ctx.organisationId, query.status, query.time, query.q, query.updated_since, page.limit, page.after]), (knownJsonTag) =>
        deps.clients.inventory.listEvents({ status: query.status, time: query.time, q: query.q, updatedSince: query.updated_since, page, renderJson: true, knownJsonTag }, ctx),
      ),
  }),
  defineOperation({
    method: 'get',
    path: '/events/{id}',
    operationId: 'retrieveEvent',
    tag: 'Catalog',
    summary: 'Retrieve an event',
    description: 'By id or slug, with its venue and live availability. Scope `events:read`.',
    scopes: read,
    id: eventRef,
    responses: { 200: jsonResponse('The event.', EventSchema), 404: eventMissing },
    handler: async ({ id, ctx, deps }) => ok(toApiJson(gen.inventory.EventSchema, await deps.clients.inventory.getEvent({ idOrSlug: id }, ctx))),
  }),
  defineOperation({
    method: 'get',
    path: '/events/{id}/ticket_types',
    operationId: 'listTicketTypes',
    tag: 'Catalog',
    summary: "List an event's ticket types",
    description: 'Every ticket type in one page (`has_more` false). Prices include the booking fee.',
    scopes: read,
    id: eventRef,
    responses: { 200: jsonResponse('All ticket types of the event.', TicketTypeList), 404: eventMissing },
    handler: async ({ id, ctx, deps }) => {
      const result = await deps.clients.inventory.listTicketTypes({ eventIdOrSlug: id }, ctx);
      return ok(singlePage(result.data.map((type) => toApiJson(gen.inventory.TicketTypeSchema, type))));
    },
  }),
  defineListOperation({
    path: '/venues',
    operationId: 'listVenues',
    tag: 'Catalog',
    summary: "List the venues of the organisation's events",
    description: 'Sorted by id; venues removed from the platform are left out. Scope `events:read`.',
    scopes: read,
    query: PaginationQuery,
    responses: { 200: jsonResponse('A page of venues, by id.', VenueList), 400: errorResponse('Bad limit or cursor.') },
    filters: () => ({}),
    fetch: async ({ ctx, deps }, page) => deps.clients.inventory.listVenues({ page }, ctx),
    toJson: (venue) => toApiJson(gen.inventory.VenueSchema, venue),
  }),
  defineOperation({
    method: 'get',
    path: '/venues/{id}',
    operationId: 'retrieveVenue',
    tag: 'Catalog',
    summary: 'Retrieve a venue',
    description: "A venue one of the organisation's events points at. Scope `events:read`.",
    scopes: read,
    id: venueId,
    responses: { 200: jsonResponse('The venue.', VenueSchema), 404: errorResponse("No such venue among the organisation's events.") },
    handler: async ({ id, ctx, deps }) => ok(toApiJson(gen.inventory.VenueSchema, await deps.clients.inventory.getVenue({ id: BigInt(id) }, ctx))),
  }),
];
