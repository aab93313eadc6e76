/** Catalog endpoints (events, ticket types, venues), served by the inventory service. */
import { Router } from 'express';
import { gen, toApiJson, type ServiceClient } from '@partner-api/shared';
import { errorResponse, jsonResponse, registerOperation } from '../../openapi/registry';
import { EventSchema, listOf, TicketTypeSchema, VenueSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { requireScope } from '../middleware/require-scope';
import { listingScope, PaginationQuery, Pager, type CursorSealer } from '../pagination';
import { integerIdParam, validate } from '../validation';
import { callerContext } from '../middleware/authenticate';

type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;

const oneOf = <T extends [string, ...string[]]>(values: T, name: string) =>
  z.enum(values, { error: `${name} must be one of ${values.join(', ')}.` });

export const isoTime = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value) && !Number.isNaN(Date.parse(value)), {
    error: 'Expected an ISO-8601 time such as 2026-10-18T00:00:00Z.',
  })
  .openapi({ example: '2026-10-18T00:00:00Z' });

const EventIdParam = z.object({
  id: z.string().min(1).max(200).openapi({ description: 'Event id (integer) or slug.', example: 'midnight-oil-reunion' }),
});
const VenueIdParam = integerIdParam('Venue id.', '3');

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

registerOperation({
  method: 'get',
  operationId: 'listEvents',
  path: '/events',
  summary: 'List events',
  request: { query: EventListQuery },
  responses: { 200: jsonResponse("A page of the organisation's events.", EventList), 400: errorResponse('Bad filter, limit or cursor.') },
});
registerOperation({
  method: 'get',
  operationId: 'retrieveEvent',
  path: '/events/{id}',
  summary: 'Retrieve an event',
  request: { params: EventIdParam },
  responses: { 200: jsonResponse('The event.', EventSchema), 404: eventMissing },
});
registerOperation({
  method: 'get',
  operationId: 'listTicketTypes',
  path: '/events/{id}/ticket_types',
  summary: "List an event's ticket types",
  description: 'Every ticket type in one page (`has_more` false). Prices include the booking fee.',
  request: { params: EventIdParam },
  responses: { 200: jsonResponse('All ticket types of the event.', TicketTypeList), 404: eventMissing },
});
registerOperation({
  method: 'get',
  operationId: 'listVenues',
  path: '/venues',
  summary: "List the venues of the organisation's events",
  request: { query: PaginationQuery },
  responses: { 200: jsonResponse('A page of venues, by id.', VenueList), 400: errorResponse('Bad limit or cursor.') },
});
registerOperation({
  method: 'get',
  operationId: 'retrieveVenue',
  path: '/venues/{id}',
  summary: 'Retrieve a venue',
  request: { params: VenueIdParam },
  responses: { 200: jsonResponse('The venue.', VenueSchema), 404: errorResponse("No such venue among the organisation's events.") },
});

export function catalogRoutes(inventory: InventoryClient, sealer: CursorSealer): Router {
  const router = Router();
  const read = requireScope('events:read');

  router.get('/events', read, async (req, res) => {
    const query = validate(EventListQuery, req.query);
    const ctx = callerContext(res);
    const filters = { status: query.status, time: query.time, q: query.q, updated_since: query.updated_since };
    const pager = new Pager(sealer, listingScope('GET /events', ctx.organisationId, filters));
    const result = await inventory.listEvents(
      { status: query.status, time: query.time, q: query.q, updatedSince: query.updated_since, page: pager.page(query) },
      ctx,
    );
    res.json(pager.envelope(result.data.map((event) => toApiJson(gen.inventory.EventSchema, event)), result.pageInfo));
  });

  router.get('/events/:id', read, async (req, res) => {
    const { id } = validate(EventIdParam, req.params);
    const event = await inventory.getEvent({ idOrSlug: id }, callerContext(res));
    res.json(toApiJson(gen.inventory.EventSchema, event));
  });

  router.get('/events/:id/ticket_types', read, async (req, res) => {
    const { id } = validate(EventIdParam, req.params);
    const result = await inventory.listTicketTypes({ eventIdOrSlug: id }, callerContext(res));
    res.json({
      object: 'list',
      data: result.data.map((type) => toApiJson(gen.inventory.TicketTypeSchema, type)),
      has_more: false,
      next_cursor: null,
    });
  });

  router.get('/venues', read, async (req, res) => {
    const query = validate(PaginationQuery, req.query);
    const ctx = callerContext(res);
    const pager = new Pager(sealer, listingScope('GET /venues', ctx.organisationId, {}));
    const result = await inventory.listVenues({ page: pager.page(query) }, ctx);
    res.json(pager.envelope(result.data.map((venue) => toApiJson(gen.inventory.VenueSchema, venue)), result.pageInfo));
  });

  router.get('/venues/:id', read, async (req, res) => {
    const { id } = validate(VenueIdParam, req.params);
    const venue = await inventory.getVenue({ id: BigInt(id) }, callerContext(res));
    res.json(toApiJson(gen.inventory.VenueSchema, venue));
  });
  return router;
}
