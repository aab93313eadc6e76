/**
 * Voids, an operator's action outside the partner API (`partnerctl ticket
 * void`): a valid ticket becomes `void`, so the door answers `422
 * ticket_void` and the attendee list leaves it out, and its place goes
 * back on sale. The void commits first with the stock marked as owed; then
 * inventory restocks it once per ticket (`RestockRefund` under the id
 * `void-<ticket id>`), and a recovery loop finishes what a crash or an
 * unreachable inventory left owed (D232, D233).
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, inTransaction, notFound, type gen, type InventoryClient, type Logger, operatorContext, type Pool, type RequestContext } from '@partner-api/shared';
import type { TicketRepository, TicketRow } from '../storage/ticket-repository';
import { ticketView, type TicketInit } from './ticket-view';

type VoidRequest = MessageShape<typeof gen.tickets.VoidTicketRequestSchema>;
export type VoidInventory = Pick<InventoryClient, 'restockRefund'>;

export const MAX_VOID_REASON_LENGTH = 500;

export function voidReason(reason: string): string | null {
  const clean = reason.trim();
  if (clean.length > MAX_VOID_REASON_LENGTH || clean.includes('\u0000')) {
    throw new ApiError('parameter_invalid', `reason is at most ${MAX_VOID_REASON_LENGTH} characters of text.`, 'reason');
  }
  return clean || null;
}

/** Whether a ticket can be voided (D232): a void one again is left as it is, so a retry changes nothing. */
export function voidVerdict(ticket: Pick<TicketRow, 'status'>): 'void' | 'unchanged' {
  switch (ticket.status) {
    case 'valid':
      return 'void';
    case 'void':
      return 'unchanged';
    case 'refunded':
      throw new ApiError('ticket_void', 'This ticket was refunded: it is already out of use.', 'id');
    case 'checked_in':
      throw new ApiError('parameter_invalid', 'This ticket is checked in and can no longer be voided.', 'id', 422);
  }
}

/** The restock id of a void ticket: one per ticket, so inventory returns its place once. */
export const voidRestockId = (ticketId: string): string => `void-${ticketId}`;

export class Voids {
  constructor(
    private readonly pool: Pool,
    private readonly repository: TicketRepository,
    private readonly inventory: VoidInventory,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async void(ctx: RequestContext, request: VoidRequest): Promise<TicketInit> {
    const reason = voidReason(request.reason);
    const row = await inTransaction(this.pool, async (client) => {
      const ticket = await this.repository.lock(client, ctx.organisationId, request.id.toString());
      if (!ticket) throw notFound('ticket');
      return voidVerdict(ticket) === 'void' ? this.repository.markVoid(client, ticket.id, reason) : ticket;
    });
    // Owed stock goes back now; if inventory cannot take it, the loop below tries again.
    if (row.restock_pending) await this.restock(row).catch((error: unknown) => this.logger.warn({ err: error, ticketId: row.id }, 'restocking a void ticket failed; it will be retried'));
    return ticketView(row);
  }

  /** Restocks void tickets still owed `afterMs` after their void; returns how many. */
  async restockDue(afterMs: number, limit = 100): Promise<number> {
    const due = await this.repository.restockDue(new Date(this.clock().getTime() - afterMs), limit);
    let done = 0;
    for (const row of due) {
      try {
        await this.restock(row);
        done += 1;
      } catch (error) {
        this.logger.warn({ err: error, ticketId: row.id }, 'restocking a void ticket failed; it will be retried');
      }
    }
    return done;
  }

  private async restock(row: TicketRow): Promise<void> {
    const ctx = operatorContext(Number(row.organisation_id), `void_${row.id}`);
    await this.inventory.restockRefund({ refundId: voidRestockId(row.id), eventId: BigInt(row.event_id), lines: [{ poolId: BigInt(row.pool_id), quantity: 1 }] }, ctx);
    await this.repository.markRestocked(row.id);
  }
}
