/**
 * An event's tickets at the door, served by the tickets service (which
 * resolves the event through inventory): the attendee list and check-ins.
 */
import { Router } from 'express';
import { gen, toApiJson, type ServiceClient } from '@partner-api/shared';
import { errorResponse, jsonResponse, registerOperation } from '../../openapi/registry';
import { CheckInSchema, listOf, TicketSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { requireScope } from '../middleware/require-scope';
import { listingScope, PaginationQuery, Pager, type CursorSealer } from '../pagination';
import { validate } from '../validation';
import { isoTime } from './catalog';
import { callerContext } from '../middleware/authenticate';

type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;

/** Longer than any barcode (22 characters) or QR payload a scanner sends; the tickets service holds the same limit. */
const MAX_CODE_LENGTH = 256;

const EventIdParam = z.object({
  id: z.string().min(1).max(200).openapi({ description: 'Event id (integer) or slug.', example: 'midnight-oil-reunion' }),
});

export const AttendeeListQuery = PaginationQuery.extend({
  checked_in: z
    .enum(['true', 'false'], { error: 'checked_in must be true or false.' })
    .optional()
    .openapi({ description: '`true`: only checked-in tickets; `false`: only tickets not checked in (valid or refunded).' }),
  updated_since: isoTime.optional().openapi({ description: 'Only tickets changed at or after this time.' }),
});

export const CheckInBody = z
  .object({
    code: z
      .string({ error: 'code must be a string.' })
      .min(1, { error: `code must be 1 to ${MAX_CODE_LENGTH} characters.` })
      .max(MAX_CODE_LENGTH, { error: `code must be 1 to ${MAX_CODE_LENGTH} characters.` })
      .nullable()
      .optional()
      .openapi({ description: 'The scanned QR payload or barcode. White space around it is ignored.', example: '7fQk2LmW9xTzR4bNc8VhJd' }),
    ticket_id: z
      .number({ error: 'ticket_id must be a positive integer.' })
      .int({ error: 'ticket_id must be a positive integer.' })
      .positive({ error: 'ticket_id must be a positive integer.' })
      .nullable()
      .optional()
      .openapi({ description: 'Check in by ticket id instead. When both are sent, `code` must be the barcode of this ticket.', example: 1001 }),
  })
  .openapi('CreateCheckIn', { description: 'Send `code` or `ticket_id` (null counts as not sent).' });

registerOperation({
  method: 'get',
  path: '/events/{id}/attendees',
  operationId: 'listAttendees',
  summary: "List an event's attendees",
  description: 'Every ticket of the event, by id. Void tickets are left out; refunded tickets are included with `status` `refunded`. Scope `attendees:read`.',
  request: { params: EventIdParam, query: AttendeeListQuery },
  responses: {
    200: jsonResponse('A page of tickets.', listOf(TicketSchema, 'AttendeeList')),
    400: errorResponse('Bad checked_in, updated_since, limit or cursor.'),
    404: errorResponse('No event with that id or slug in the organisation.'),
  },
});
registerOperation({
  method: 'post',
  path: '/events/{id}/check_ins',
  operationId: 'createCheckIn',
  summary: 'Check a ticket in',
  description:
    'The first scan of a valid ticket checks it in (`result` `checked_in`, event `ticket.checked_in`); a repeat scan answers `already_checked_in` with the original `checked_in_at`. Test keys: classified the same way, nothing recorded, `dry_run` true. Scope `check_in:write`.',
  request: {
    params: EventIdParam,
    headers: z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional().openapi({ description: 'Makes retries safe for 24 hours.' }) }),
    body: { content: { 'application/json': { schema: CheckInBody } } },
  },
  responses: {
    200: jsonResponse('The check-in.', CheckInSchema),
    400: errorResponse('Neither code nor ticket_id (parameter_missing), or a bad value (parameter_invalid).'),
    404: errorResponse('No such event, code or ticket in the organisation.'),
    409: errorResponse('The ticket is for another event (ticket_wrong_event), or a request with this Idempotency-Key is still running.'),
    422: errorResponse('The ticket was refunded or voided (ticket_void), or Idempotency-Key reused.'),
  },
});

export function eventTicketRoutes(tickets: TicketsClient, sealer: CursorSealer): Router {
  const router = Router();

  router.get('/events/:id/attendees', requireScope('attendees:read'), async (req, res) => {
    const { id } = validate(EventIdParam, req.params);
    const query = validate(AttendeeListQuery, req.query);
    const ctx = callerContext(res);
    const filters = { event: id, checked_in: query.checked_in, updated_since: query.updated_since };
    const pager = new Pager(sealer, listingScope('GET /events/{id}/attendees', ctx.organisationId, filters));
    const result = await tickets.listAttendees(
      {
        eventIdOrSlug: id,
        checkedIn: query.checked_in === undefined ? undefined : query.checked_in === 'true',
        updatedSince: query.updated_since,
        page: pager.page(query),
      },
      ctx,
    );
    res.json(pager.envelope(result.data.map((ticket) => toApiJson(gen.tickets.TicketSchema, ticket)), result.pageInfo));
  });

  router.post('/events/:id/check_ins', requireScope('check_in:write'), async (req, res) => {
    const { id } = validate(EventIdParam, req.params);
    const body = validate(CheckInBody, req.body ?? {});
    const checkIn = await tickets.checkIn(
      {
        eventIdOrSlug: id,
        code: body.code ?? undefined,
        ticketId: body.ticket_id == null ? undefined : BigInt(body.ticket_id),
      },
      callerContext(res),
    );
    res.json(toApiJson(gen.tickets.CheckInResponseSchema, checkIn));
  });
  return router;
}
