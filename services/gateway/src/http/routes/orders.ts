/** Orders (served by the orders service) and tickets (served by the tickets service). */
import { Router } from 'express';
import { gen, toApiJson, type ServiceClient } from '@partner-api/shared';
import { errorResponse, jsonResponse, registerOperation } from '../../openapi/registry';
import { listOf, OrderSchema, TicketSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { requireScope } from '../middleware/require-scope';
import { listingScope, PaginationQuery, Pager, type CursorSealer } from '../pagination';
import { integerIdParam, validate } from '../validation';
import { isoTime } from './catalog';
import { callerContext } from '../middleware/authenticate';

type OrdersClient = ServiceClient<(typeof gen.orders.OrdersService)['method']>;
type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;

export const OrderListQuery = PaginationQuery.extend({
  event_id: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, { error: 'event_id must be a positive integer.' })
    .optional()
    .openapi({ description: 'Only orders for this event.', example: '42' }),
  status: z
    .enum(['completed', 'refunded', 'all'], { error: 'status must be one of completed, refunded, all.' })
    .default('all')
    .openapi({ description: '`completed` (no refunded tickets), `refunded` (at least one refunded ticket, including partial refunds) or `all`.' }),
  updated_since: isoTime.optional().openapi({ description: 'Only orders changed at or after this time.' }),
});

const OrderIdParam = z.object({ id: z.string().min(1).max(64).openapi({ description: 'Order id (uuid).' }) });
const TicketIdParam = integerIdParam('Ticket id.', '1001');

registerOperation({
  method: 'get',
  path: '/orders',
  operationId: 'listOrders',
  summary: 'List orders',
  description: "Newest first. Orders from every sales channel for the organisation's events, each with its tickets.",
  request: { query: OrderListQuery },
  responses: { 200: jsonResponse('A page of orders.', listOf(OrderSchema, 'OrderList')), 400: errorResponse('Bad event_id, status, updated_since, limit or cursor.') },
});
registerOperation({
  method: 'get',
  path: '/orders/{id}',
  operationId: 'retrieveOrder',
  summary: 'Retrieve an order',
  request: { params: OrderIdParam },
  responses: { 200: jsonResponse('The order with its tickets.', OrderSchema), 404: errorResponse('No such order in the organisation.') },
});
registerOperation({
  method: 'get',
  path: '/tickets/{id}',
  operationId: 'retrieveTicket',
  summary: 'Retrieve a ticket',
  description: 'Scope `orders:read` or `attendees:read`.',
  request: { params: TicketIdParam },
  responses: { 200: jsonResponse('The ticket.', TicketSchema), 404: errorResponse('No such ticket in the organisation.') },
});

export function orderRoutes(orders: OrdersClient, tickets: TicketsClient, sealer: CursorSealer): Router {
  const router = Router();

  router.get('/orders', requireScope('orders:read'), async (req, res) => {
    const query = validate(OrderListQuery, req.query);
    const ctx = callerContext(res);
    const filters = { event_id: query.event_id, status: query.status, updated_since: query.updated_since };
    const pager = new Pager(sealer, listingScope('GET /orders', ctx.organisationId, filters));
    const result = await orders.listOrders(
      {
        eventId: query.event_id === undefined ? undefined : BigInt(query.event_id),
        status: query.status,
        updatedSince: query.updated_since,
        page: pager.page(query),
      },
      ctx,
    );
    res.json(pager.envelope(result.data.map((order) => toApiJson(gen.orders.OrderSchema, order)), result.pageInfo));
  });

  router.get('/orders/:id', requireScope('orders:read'), async (req, res) => {
    const { id } = validate(OrderIdParam, req.params);
    const order = await orders.getOrder({ id }, callerContext(res));
    res.json(toApiJson(gen.orders.OrderSchema, order));
  });

  router.get('/tickets/:id', requireScope('orders:read', 'attendees:read'), async (req, res) => {
    const { id } = validate(TicketIdParam, req.params);
    const ticket = await tickets.getTicket({ id: BigInt(id) }, callerContext(res));
    res.json(toApiJson(gen.tickets.TicketSchema, ticket));
  });
  return router;
}
