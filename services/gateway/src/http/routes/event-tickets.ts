/**
 * An event's tickets at the door, served by the tickets service (which
 * resolves the event through inventory): the attendee list and check-ins.
 */
import { gen, MAX_TICKET_CODE_LENGTH, toApiJson } from '@partner-api/shared';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { CheckInSchema, listOf, TicketSchema } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { defineListOperation } from '../list-operation';
import { defineOperation, ok } from '../operation';
import { PaginationQuery } from '../pagination';
import { eventRef } from '../path-ids';
import { isoTime } from './catalog';

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
      .min(1, { error: `code must be 1 to ${MAX_TICKET_CODE_LENGTH} characters.` })
      .max(MAX_TICKET_CODE_LENGTH, { error: `code must be 1 to ${MAX_TICKET_CODE_LENGTH} characters.` })
      .nullable()
      .optional()
      .openapi({ description: 'The scanned QR payload or barcode. White space around it is ignored.', example: '7fQk2LmW9xTzR4bNc8VhJd' }),
    ticket_id: z
      .number({ error: 'ticket_id must be a positive integer.' })
      .int({ error: 'ticket_id must be a positive integer.' })
      .positive({ error: 'ticket_id must be a positive integer.' })
      .nullable()
      .optional()
      .openapi({ description: 'Check in by ticket id instead. When both are sent, `code` must be the barcode of this ticket.', example: 1001, maximum: Number.MAX_SAFE_INTEGER }),
  })
  .openapi('CreateCheckIn', {
    description: 'Send `code` or `ticket_id`, or both (null counts as not sent).',
    // What the server refuses without: at least one of the two, not null (D391).
    anyOf: [
      { required: ['code'], properties: { code: { type: 'string' } } },
      { required: ['ticket_id'], properties: { ticket_id: { type: 'integer' } } },
    ],
  });

export const eventTicketOperations = [
  defineListOperation({
    path: '/events/{id}/attendees',
    operationId: 'listAttendees',
    tag: 'Attendees and check-ins',
    summary: "List an event's attendees",
    description: 'Every ticket of the event, by id. Void tickets are left out; refunded tickets are included with `status` `refunded`. Scope `attendees:read`.',
    scopes: ['attendees:read'],
    id: eventRef,
    query: AttendeeListQuery,
    responses: {
      200: jsonResponse('A page of tickets.', listOf(TicketSchema, 'AttendeeList')),
      400: errorResponse('Bad checked_in, updated_since, limit or cursor.'),
      404: errorResponse('No event with that id or slug in the organisation.'),
    },
    filters: ({ id, query }) => ({ event: id, checked_in: query.checked_in, updated_since: query.updated_since }),
    fetch: async ({ id, query, ctx, deps }, page) =>
      deps.clients.tickets.listAttendees(
        {
          eventIdOrSlug: id,
          checkedIn: query.checked_in === undefined ? undefined : query.checked_in === 'true',
          updatedSince: query.updated_since,
          page,
        },
        ctx,
      ),
    toJson: (ticket) => toApiJson(gen.tickets.TicketSchema, ticket),
  }),
  defineOperation({
    method: 'post',
    path: '/events/{id}/check_ins',
    operationId: 'createCheckIn',
    critical: true,
    tag: 'Attendees and check-ins',
    summary: 'Check a ticket in',
    description:
      'The first scan of a valid ticket checks it in (`result` `checked_in`, event `ticket.checked_in`); a repeat scan answers `already_checked_in` with the original `checked_in_at`. Test keys: classified the same way, nothing recorded, `dry_run` true. Scope `check_in:write`.',
    scopes: ['check_in:write'],
    id: eventRef,
    body: CheckInBody,
    responses: {
      200: jsonResponse('The check-in.', CheckInSchema),
      400: errorResponse('Neither code nor ticket_id (parameter_missing), or a bad value (parameter_invalid).'),
      404: errorResponse('No such event, code or ticket in the organisation.'),
      409: errorResponse('The ticket is for another event (ticket_wrong_event), or a request with this Idempotency-Key is still running.'),
      422: errorResponse('The ticket was refunded or voided (ticket_void), or Idempotency-Key reused.'),
    },
    handler: async ({ id, body, ctx, deps }) => {
      const checkIn = await deps.clients.tickets.checkIn(
        { eventIdOrSlug: id, code: body.code ?? undefined, ticketId: body.ticket_id == null ? undefined : BigInt(body.ticket_id) },
        ctx,
      );
      return ok(toApiJson(gen.tickets.CheckInResponseSchema, checkIn));
    },
  }),
];
