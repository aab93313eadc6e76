/**
 * Transfers, an operator's action outside the partner API (`partnerctl
 * ticket transfer`): a valid ticket gets a new attendee and a new barcode,
 * so the old barcode no longer opens the door, and `ticket.transferred`
 * fires in the same transaction with the previous attendee's email. The
 * ticket's row is locked for the change, so concurrent transfers of one
 * ticket apply one after the other, each from the attendee the last left.
 * The same transaction queues the new attendee's email (the ticket with its
 * new code) and the previous attendee's note that it moved (D413).
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, emitEvent, gen, inTransaction, notFound, type Pool, type RequestContext } from '@partner-api/shared';
import type { MailRepository } from '../storage/mail-repository';
import type { TicketRepository, TicketRow, TransferredAttendee } from '../storage/ticket-repository';
import { MAX_NAME_LENGTH } from './comp-rules';
import { attendeeName } from './ticket-mail-content';
import { ticketView, type TicketInit } from './ticket-view';
import { newBarcode } from './tickets';

type TransferRequest = MessageShape<typeof gen.tickets.TransferTicketRequestSchema>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The new attendee as stored; the email is required, names are optional (D231). */
export function transferee(request: TransferRequest): TransferredAttendee {
  const email = (request.attendee?.email ?? '').trim();
  if (!email) throw new ApiError('parameter_missing', 'attendee.email is required: the new attendee receives the ticket.', 'attendee.email');
  if (!EMAIL.test(email) || email.length > 254 || email.includes('\u0000')) {
    throw new ApiError('parameter_invalid', 'attendee.email must be an email address.', 'attendee.email');
  }
  const name = (value: string | undefined, param: string) => {
    const clean = (value ?? '').replace(/\s+/g, ' ').trim();
    if (clean.length > MAX_NAME_LENGTH || clean.includes('\u0000')) throw new ApiError('parameter_invalid', `${param} is at most ${MAX_NAME_LENGTH} characters of text.`, param);
    return clean || null;
  };
  return {
    attendee_email: email,
    attendee_first_name: name(request.attendee?.firstName, 'attendee.first_name'),
    attendee_last_name: name(request.attendee?.lastName, 'attendee.last_name'),
  };
}

/**
 * Whether a ticket can go to `to` (D230): only a valid ticket moves; one
 * already held by exactly this attendee is left as it is, so a retried
 * transfer neither rotates the barcode again nor fires a second event.
 */
export function transferVerdict(ticket: Pick<TicketRow, 'status' | 'attendee_email' | 'attendee_first_name' | 'attendee_last_name'>, to: TransferredAttendee): 'transfer' | 'unchanged' {
  switch (ticket.status) {
    case 'refunded':
      throw new ApiError('ticket_void', 'This ticket was refunded and cannot be transferred.', 'id');
    case 'void':
      throw new ApiError('ticket_void', 'This ticket was voided and cannot be transferred.', 'id');
    case 'checked_in':
      throw new ApiError('parameter_invalid', 'This ticket is checked in and can no longer be transferred.', 'id', 422);
    case 'valid':
      break;
  }
  const same =
    ticket.attendee_email?.toLowerCase() === to.attendee_email.toLowerCase() &&
    ticket.attendee_first_name === to.attendee_first_name &&
    ticket.attendee_last_name === to.attendee_last_name;
  return same ? 'unchanged' : 'transfer';
}

export class Transfers {
  constructor(
    private readonly pool: Pool,
    private readonly repository: TicketRepository,
    private readonly mails: MailRepository,
  ) {}

  async transfer(ctx: RequestContext, request: TransferRequest): Promise<TicketInit> {
    const to = transferee(request);
    const row = await inTransaction(this.pool, async (client) => {
      const ticket = await this.repository.lock(client, ctx.organisationId, request.id.toString());
      if (!ticket) throw notFound('ticket');
      if (transferVerdict(ticket, to) === 'unchanged') return ticket;
      const moved = await this.repository.transfer(client, ticket.id, to, newBarcode());
      await emitEvent(client, {
        type: 'ticket.transferred',
        organisationId: ctx.organisationId,
        schema: gen.tickets.TicketSchema,
        view: ticketView(moved),
        partitionKey: `ticket:${moved.id}`,
        // The spec types it as a string: a ticket issued without an email hands on an empty one.
        extra: { previous_attendee_email: ticket.attendee_email ?? '' },
      });
      const dedupe = `transfer:${moved.id}:${moved.barcode}`;
      await this.mails.queue(
        { organisationId: ctx.organisationId, kind: 'transfer_received', dedupeKey: `${dedupe}:received`, ticketId: moved.id, barcode: moved.barcode, recipient: moved.attendee_email!, recipientName: attendeeName(moved) },
        client,
      );
      if (ticket.attendee_email) {
        await this.mails.queue(
          { organisationId: ctx.organisationId, kind: 'transfer_moved', dedupeKey: `${dedupe}:moved`, ticketId: moved.id, recipient: ticket.attendee_email, recipientName: attendeeName(ticket) },
          client,
        );
      }
      return moved;
    });
    return ticketView(row);
  }
}
