/** Orders (served by the orders service) and tickets (served by the tickets service). */
import { gen, toApiJson } from '@partner-api/shared';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { listOf, OrderSchema, TicketSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { defineListOperation } from '../list-operation';
import { defineOperation, ok } from '../operation';
import { PaginationQuery } from '../pagination';
import { integerId, uuidId } from '../path-ids';
import { isoTime } from './catalog';

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

export const orderOperations = [
  defineListOperation({
    path: '/orders',
    operationId: 'listOrders',
    tag: 'Orders and tickets',
    summary: 'List orders',
    description: "Newest first. Orders from every sales channel for the organisation's events, each with its tickets.",
    scopes: ['orders:read'],
    query: OrderListQuery,
    responses: { 200: jsonResponse('A page of orders.', listOf(OrderSchema, 'OrderList')), 400: errorResponse('Bad event_id, status, updated_since, limit or cursor.') },
    filters: ({ query }) => ({ event_id: query.event_id, status: query.status, updated_since: query.updated_since }),
    fetch: async ({ query, ctx, deps }, page) =>
      deps.clients.orders.listOrders(
        {
          eventId: query.event_id === undefined ? undefined : BigInt(query.event_id),
          status: query.status,
          updatedSince: query.updated_since,
          page,
        },
        ctx,
      ),
    toJson: (order) => toApiJson(gen.orders.OrderSchema, order),
  }),
  defineOperation({
    method: 'get',
    path: '/orders/{id}',
    operationId: 'retrieveOrder',
    tag: 'Orders and tickets',
    summary: 'Retrieve an order',
    description: 'The order with its tickets, from any sales channel. Scope `orders:read`.',
    scopes: ['orders:read'],
    id: uuidId('order', 'Order id (uuid).'),
    responses: { 200: jsonResponse('The order with its tickets.', OrderSchema), 404: errorResponse('No such order in the organisation.') },
    handler: async ({ id, ctx, deps }) => ok(toApiJson(gen.orders.OrderSchema, await deps.clients.orders.getOrder({ id }, ctx))),
  }),
  defineOperation({
    method: 'get',
    path: '/tickets/{id}',
    operationId: 'retrieveTicket',
    tag: 'Orders and tickets',
    summary: 'Retrieve a ticket',
    description: 'Scope `orders:read` or `attendees:read`.',
    scopes: ['orders:read', 'attendees:read'],
    id: integerId('ticket', 'Ticket id.', '1001'),
    responses: { 200: jsonResponse('The ticket.', TicketSchema), 404: errorResponse('No such ticket in the organisation.') },
    handler: async ({ id, ctx, deps }) => ok(toApiJson(gen.tickets.TicketSchema, await deps.clients.tickets.getTicket({ id: BigInt(id) }, ctx))),
  }),
];
