/**
 * POST /events/{id}/check_ins: a scan at the door. The first scan of a valid
 * ticket checks it in and writes `ticket.checked_in` in the same
 * transaction; every later scan answers `already_checked_in` with the
 * original time. Concurrent scans of one ticket race on one conditional
 * UPDATE, so exactly one of them is the first. A test key's scan is
 * classified the same way and changes nothing.
 */
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import {
  ApiError,
  emitEvent,
  gen,
  inTransaction,
  isDryRun,
  notFound,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { TicketRepository, TicketRow } from '../storage/ticket-repository';
import { asCheckedIn, classifyScan, scanTarget, type ScanTarget } from './check-in-rules';
import type { EventDirectory } from './event-directory';
import { ticketView } from './ticket-view';

type CheckInRequest = MessageShape<typeof gen.tickets.CheckInRequestSchema>;
export type CheckInInit = MessageInitShape<typeof gen.tickets.CheckInResponseSchema>;

export class CheckIns {
  constructor(
    private readonly pool: Pool,
    private readonly repository: TicketRepository,
    private readonly events: EventDirectory,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async checkIn(ctx: RequestContext, request: CheckInRequest): Promise<CheckInInit> {
    const target = scanTarget({ code: request.code, ticketId: request.ticketId });
    const eventId = await this.events.eventId(ctx, request.eventIdOrSlug);
    const ticket = await this.find(ctx, target);
    const verdict = classifyScan(ticket, eventId);

    if (isDryRun(ctx)) {
      return verdict === 'first' ? this.answer(ctx, 'checked_in', asCheckedIn(ticket, this.clock())) : this.answer(ctx, 'already_checked_in', ticket);
    }
    if (verdict === 'repeat') return this.answer(ctx, 'already_checked_in', ticket);

    const checkedIn = await inTransaction(this.pool, async (client) => {
      const row = await this.repository.markCheckedIn(client, ticket.id);
      if (row) {
        await emitEvent(client, { type: 'ticket.checked_in', organisationId: ctx.organisationId, schema: gen.tickets.TicketSchema, view: ticketView(row), partitionKey: `ticket:${row.id}` });
      }
      return row;
    });
    if (checkedIn) return this.answer(ctx, 'checked_in', checkedIn);

    // Another scan got there first (or the ticket was refunded since it was read): answer for what is stored now.
    const current = await this.repository.find(ctx.organisationId, ticket.id);
    if (!current) throw notFound('ticket', target.by === 'id' ? 'ticket_id' : 'code');
    if (classifyScan(current, eventId) !== 'repeat') throw new ApiError('internal_error', 'An internal error occurred.');
    return this.answer(ctx, 'already_checked_in', current);
  }

  /** The organisation's ticket the body names; with both fields, `code` must be the barcode of `ticket_id`. */
  private async find(ctx: RequestContext, target: ScanTarget): Promise<TicketRow> {
    if (target.by === 'code') {
      const row = await this.repository.findByBarcode(ctx.organisationId, target.code);
      if (!row) throw new ApiError('resource_missing', 'No ticket has this code.', 'code');
      return row;
    }
    const row = await this.repository.find(ctx.organisationId, target.ticketId.toString());
    if (!row) throw notFound('ticket', 'ticket_id');
    if (target.code !== undefined && target.code !== row.barcode) {
      throw new ApiError('parameter_invalid', 'code and ticket_id name different tickets; send one of them.', 'code');
    }
    return row;
  }

  private answer(ctx: RequestContext, result: 'checked_in' | 'already_checked_in', ticket: TicketRow): CheckInInit {
    return { object: 'check_in', result, livemode: !isDryRun(ctx), dryRun: isDryRun(ctx), ticket: ticketView(ticket) };
  }
}
