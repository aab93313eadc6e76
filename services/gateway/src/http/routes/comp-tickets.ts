/**
 * POST /comp_tickets: complimentary tickets for a guest list, issued by the
 * tickets service (which takes the stock through inventory). The batch id
 * that makes a retried request issue once is derived here from the API key,
 * the Idempotency-Key and the body, so even a retry after a 5xx (which the
 * idempotency store does not keep) finds the first attempt's batch, while a
 * key reused for another batch after its 24 hours names a new one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gen, toApiJson } from '@partner-api/shared';
import { errorResponse, jsonResponse } from '../../openapi/registry';
import { CompTicketBatchSchema, EMAIL_PATTERN } from '../../openapi/schemas';
import { z } from '../../openapi/zod';
import { canonicalJson } from '../middleware/idempotency';
import { created, defineOperation } from '../operation';

const positiveInt = (name: string) =>
  z
    .number({ error: `${name} must be an integer.` })
    .int({ error: `${name} must be an integer.` })
    .positive({ error: `${name} must be positive.` })
    // An integer past 2^53 − 1 is refused as not an integer (D391).
    .openapi({ maximum: Number.MAX_SAFE_INTEGER });
const GUESTS = 'attendees must be a list of 1 to 50 guests, each { email, name }.';

export const CreateCompTicketsBody = z
  .object({
    event_id: z
      .union([positiveInt('event_id'), z.string().min(1).max(200)], { error: 'event_id must be an event id or slug.' })
      .openapi({ description: 'The event, by id or slug.', example: 42 }),
    ticket_type_id: positiveInt('ticket_type_id').openapi({ description: 'The ticket type to issue.', example: 7 }),
    pool_id: positiveInt('pool_id').optional().openapi({ description: 'Needed only for a ticket type sold from several pools.' }),
    attendees: z
      .array(
        z.object({
          email: z.email({ error: 'Each guest needs a valid email.' }).max(254, { error: 'Each guest needs a valid email.' }).openapi({ pattern: EMAIL_PATTERN }),
          name: z
            .string({ error: 'name must be a string.' })
            .max(200, { error: 'name is at most 200 characters.' })
            .nullable()
            .optional()
            .openapi({ description: 'Split into attendee first and last name: "Last, First" as written; otherwise the last word (with particles such as "van" or "de") is the last name.' }),
        }),
        { error: GUESTS },
      )
      .min(1, { error: GUESTS })
      .max(50, { error: GUESTS })
      .openapi({ description: '1 to 50 guests; each gets one ticket and an email. The same email may appear more than once (one ticket each).' }),
    note: z.string({ error: 'note must be a string.' }).max(500, { error: 'note is at most 500 characters.' }).nullable().optional().openapi({ description: 'Internal note, kept with the batch for the organiser; never shown to guests.' }),
  })
  .openapi('CreateCompTickets');


/** The same API key, Idempotency-Key and body always name the same batch; without a key every call is its own. */
export function compBatchId(keyId: number, idempotencyKey: string | undefined, body: unknown): string {
  if (idempotencyKey === undefined) return `comp_${randomUUID()}`;
  return `comp_${createHash('sha256').update(`${keyId}\n${idempotencyKey}\n${canonicalJson(body)}`).digest('hex').slice(0, 40)}`;
}

export const compTicketOperations = [
  defineOperation({
    method: 'post',
    path: '/comp_tickets',
    operationId: 'createCompTickets',
    critical: true,
    tag: 'Comp tickets',
    summary: 'Issue comp tickets',
    description:
      'One free ticket (`price` `0.00`, `comp` true, `order_id` null) per guest, taken from the pool for good, each announced by `ticket.issued` and emailed to the guest. ' +
      'When the pool has fewer tickets left than guests, the first guests in request order get them and the rest are listed in `failed` with `exceeds_stock`; with none left the request fails with `422 exceeds_availability`. ' +
      'Test keys validate and count in full but issue, take and email nothing (`dry_run` true, `tickets` empty). Scope `orders:write`.',
    scopes: ['orders:write'],
    body: CreateCompTicketsBody,
    bodyOptions: { invalidWhenMissing: (param) => param === 'attendees' || param.startsWith('attendees[') },
    idempotencyNote: 'Makes retries safe for 24 hours: a retried batch issues once.',
    responses: {
      201: jsonResponse('The batch (or the dry run for a test key).', CompTicketBatchSchema),
      400: errorResponse('No event_id or ticket_type_id, or a multi-pool type without pool_id (parameter_missing); bad attendees, email, pool_id or note (parameter_invalid).'),
      404: errorResponse('The event or ticket type is not in the organisation.'),
      409: errorResponse('A request with this Idempotency-Key is still running.'),
      422: errorResponse('No tickets left in the pool (exceeds_availability), the event is cancelled or over (event_not_on_sale), or Idempotency-Key reused.'),
    },
    handler: async ({ body, ctx, req, deps }) => {
      const batch = await deps.clients.tickets.issueCompTickets(
        {
          eventIdOrSlug: String(body.event_id),
          ticketTypeId: BigInt(body.ticket_type_id),
          poolId: body.pool_id === undefined ? undefined : BigInt(body.pool_id),
          attendees: body.attendees.map((guest) => ({ email: guest.email, name: guest.name ?? undefined })),
          note: body.note ?? undefined,
          batchId: compBatchId(ctx.keyId, req.header('Idempotency-Key'), req.body),
        },
        ctx,
      );
      return created(toApiJson(gen.tickets.CompTicketBatchSchema, batch));
    },
  }),
];
