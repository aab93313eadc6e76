/**
 * POST /comp_tickets: complimentary tickets for a guest list.
 *
 * 1. The guests are checked and named (comp-rules.ts).
 * 2. A retried batch (same batch id: same API key and Idempotency-Key)
 *    answers with what the first one issued.
 * 3. The batch is recorded as `taking`, then inventory takes the stock for
 *    good (TakeCompStock): as many tickets as are left, the first guests
 *    in request order get them, the rest are `failed` with `exceeds_stock`;
 *    none left at all is `422 exceeds_availability` (D56).
 * 4. One transaction writes the tickets (`order_id` null, price 0.00,
 *    `comp` true), one `ticket.issued` per ticket in the outbox, one queued
 *    guest email per ticket, and marks the batch `issued`.
 *
 * A batch is never half-written (D60): if step 4 fails, the stock goes
 * back (ReturnStock) before the error reaches the caller, and a batch left
 * `taking` by a process that died is given back by the recovery loop
 * (returnStale). The issuing transaction locks the batch row and needs it
 * still `taking`, so a batch whose stock was given back never issues.
 * A test key validates in full and issues, takes and emails nothing (D59).
 */
import type { MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import {
  ApiError,
  emitEvent,
  gen,
  inTransaction,
  isDryRun,
  type InventoryClient,
  type Logger,
  operatorContext,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { CompRepository } from '../storage/comp-repository';
import type { NewTicket, TicketRepository } from '../storage/ticket-repository';
import { checkNote, divideGuests, planGuests, type CompFailure, type CompGuest } from './comp-rules';
import { ticketView } from './ticket-view';
import { newBarcode } from './tickets';

type IssueCompRequest = MessageShape<typeof gen.tickets.IssueCompTicketsRequestSchema>;
export type CompBatchInit = MessageInitShape<typeof gen.tickets.CompTicketBatchSchema>;
export type CompInventory = Pick<InventoryClient, 'takeCompStock' | 'returnStock'>;

export class CompTickets {
  constructor(
    private readonly pool: Pool,
    private readonly tickets: TicketRepository,
    private readonly comps: CompRepository,
    private readonly inventory: CompInventory,
    private readonly logger: Logger,
  ) {}

  async issue(ctx: RequestContext, request: IssueCompRequest): Promise<CompBatchInit> {
    const guests = planGuests(request.attendees.map((guest) => ({ email: guest.email, name: guest.name })));
    const note = checkNote(request.note);
    if (!request.eventIdOrSlug) throw new ApiError('parameter_missing', 'event_id is required.', 'event_id');
    if (request.ticketTypeId <= 0n) throw new ApiError('parameter_missing', 'ticket_type_id is required.', 'ticket_type_id');
    const take = {
      batchId: request.batchId || ctx.requestId,
      eventIdOrSlug: request.eventIdOrSlug,
      ticketTypeId: request.ticketTypeId,
      poolId: request.poolId,
      quantity: guests.length,
    };

    if (isDryRun(ctx)) {
      const counted = await this.inventory.takeCompStock(take, ctx);
      return this.answer(ctx, counted.granted, divideGuests(guests, counted.granted).failed, []);
    }

    const earlier = await this.comps.findBatch(take.batchId);
    if (earlier?.state === 'issued') return this.replay(ctx, earlier.id, earlier.organisation_id, earlier.failed);
    const started = await this.comps.startBatch({
      id: take.batchId,
      organisationId: ctx.organisationId,
      eventIdOrSlug: take.eventIdOrSlug,
      ticketTypeId: take.ticketTypeId.toString(),
      poolId: take.poolId === undefined ? null : take.poolId.toString(),
      requested: guests.length,
      note,
    });
    if (!started) {
      const other = await this.comps.findBatch(take.batchId);
      if (other?.state === 'issued') return this.replay(ctx, other.id, other.organisation_id, other.failed);
      throw new ApiError('parameter_invalid', 'This batch id is already used.', 'batch_id');
    }

    let taken: MessageShape<typeof gen.inventory.TakeCompStockResponseSchema>;
    try {
      taken = await this.inventory.takeCompStock(take, ctx);
    } catch (error) {
      // A first attempt refused (4xx) took nothing. Anything else, or a retry of a batch an
      // earlier attempt may have taken stock for, gives back whatever was taken.
      if (error instanceof ApiError && error.httpStatus < 500 && !earlier) await this.comps.markReturned(take.batchId);
      else await this.giveBack(ctx, take.batchId);
      throw error;
    }

    const { issued, failed } = divideGuests(guests, taken.granted);
    try {
      const rows = await this.write(ctx, take.batchId, take.ticketTypeId, taken, issued, failed);
      return this.answer(ctx, rows.length, failed, rows.map(ticketView));
    } catch (error) {
      this.logger.error({ err: error, batchId: take.batchId }, 'issuing comp tickets failed: giving the stock back');
      await this.giveBack(ctx, take.batchId);
      throw error;
    }
  }

  /**
   * Gives back the stock of batches left `taking` for longer than
   * `olderThanMs` (their process died mid-way, or the give-back after a
   * failure failed too); returns how many.
   */
  async returnStale(olderThanMs: number, limit = 20): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const stale = await this.comps.staleBatches(client, olderThanMs, limit);
      let returned = 0;
      for (const batch of stale) {
        const ctx = operatorContext(Number(batch.organisation_id), `comp-recovery-${batch.id}`);
        try {
          await this.inventory.returnStock({ batchId: batch.id }, ctx);
        } catch (error) {
          // Inventory is away (Redis not verified, say): this batch stays `taking` for the next round.
          this.logger.error({ err: error, batchId: batch.id }, 'could not give a stale comp batch back yet');
          continue;
        }
        await this.comps.markReturned(batch.id, client);
        returned += 1;
        this.logger.warn({ batchId: batch.id }, 'comp batch left unissued: its stock was given back');
      }
      return returned;
    });
  }

  private async write(
    ctx: RequestContext,
    batchId: string,
    ticketTypeId: bigint,
    taken: MessageShape<typeof gen.inventory.TakeCompStockResponseSchema>,
    issued: CompGuest[],
    failed: CompFailure[],
  ) {
    const planned: NewTicket[] = issued.map((guest) => ({
      organisation_id: String(ctx.organisationId),
      barcode: newBarcode(),
      order_id: null,
      position: null,
      event_id: taken.eventId.toString(),
      ticket_type_id: ticketTypeId.toString(),
      pool_id: taken.poolId.toString(),
      ticket_type_name: taken.ticketTypeName,
      attendee_first_name: guest.firstName,
      attendee_last_name: guest.lastName,
      attendee_email: guest.email,
      price_cents: '0',
      comp: true,
      comp_batch_id: batchId,
    }));
    return inTransaction(this.pool, async (client) => {
      const batch = await this.comps.findBatch(batchId, client, true);
      // Given back meanwhile (the recovery loop found it stale): these tickets no longer have stock.
      if (batch?.state !== 'taking') throw new ApiError('internal_error', 'An internal error occurred.');
      const rows = await this.tickets.insertMany(client, planned);
      for (const row of rows) {
        await emitEvent(client, { type: 'ticket.issued', organisationId: ctx.organisationId, schema: gen.tickets.TicketSchema, view: ticketView(row), partitionKey: `ticket:${row.id}` });
      }
      await this.comps.queueEmails(client, rows, { title: taken.eventTitle, startsAt: taken.eventStartsAt });
      await this.comps.markIssued(client, batchId, failed);
      return rows;
    });
  }

  /** Returns a batch's stock and marks it returned; a failure here is left to the recovery loop. */
  private async giveBack(ctx: RequestContext, batchId: string): Promise<void> {
    try {
      await this.inventory.returnStock({ batchId }, ctx);
      await this.comps.markReturned(batchId);
    } catch (error) {
      this.logger.error({ err: error, batchId }, 'could not give a comp batch back yet: the recovery loop will');
    }
  }

  private async replay(ctx: RequestContext, batchId: string, organisationId: string, failed: Array<{ email: string; reason: string }>): Promise<CompBatchInit> {
    if (Number(organisationId) !== ctx.organisationId) throw new ApiError('parameter_invalid', 'This batch id is already used.', 'batch_id');
    const rows = await this.comps.ticketsOf(ctx.organisationId, batchId);
    return this.answer(ctx, rows.length, failed, rows.map(ticketView));
  }

  private answer(ctx: RequestContext, issued: number, failed: Array<{ email: string; reason: string }>, tickets: CompBatchInit['tickets']): CompBatchInit {
    return { object: 'comp_ticket_batch', livemode: !isDryRun(ctx), dryRun: isDryRun(ctx), issued, failed, tickets };
  }
}
