/**
 * Issuing and reading tickets. Issuing for an order is idempotent by order
 * id: the first call writes one ticket per unit and one `ticket.issued`
 * event per ticket in the same transaction; any repeat (a retried payment
 * completion, a second orders process) gets the same tickets back.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import {
  ApiError,
  emitEvent,
  gen,
  inTransaction,
  isDryRun,
  isUuid,
  notFound,
  parseCents,
  randomBase62,
  type Pool,
  type RequestContext,
} from '@partner-api/shared';
import type { NewTicket, TicketRepository, TicketRow } from '../storage/ticket-repository';
import { ticketCode } from './check-in-rules';
import { ticketView, type TicketInit } from './ticket-view';

type IssueRequest = MessageShape<typeof gen.tickets.IssueTicketsForOrderRequestSchema>;
type RefundRequest = MessageShape<typeof gen.tickets.RefundTicketsRequestSchema>;

/** More than any checkout can buy (20 lines of 100): a bigger request is a bug upstream. */
const MAX_TICKETS_PER_ORDER = 2000;

/** What a QR code encodes: 22 base62 characters, about 131 random bits. */
export const newBarcode = (): string => randomBase62(22);

export class Tickets {
  constructor(
    private readonly pool: Pool,
    private readonly repository: TicketRepository,
  ) {}

  async get(ctx: RequestContext, id: bigint): Promise<TicketInit> {
    const row = id > 0n && id < 2n ** 63n ? await this.repository.find(ctx.organisationId, id.toString()) : undefined;
    if (!row) throw notFound('ticket');
    return ticketView(row);
  }

  /** The organisation's ticket whose barcode is `code`; reading it changes nothing (the door's CheckIn is what admits). */
  async findByCode(ctx: RequestContext, code: string): Promise<TicketInit> {
    const row = await this.repository.findByBarcode(ctx.organisationId, ticketCode(code));
    if (!row) throw new ApiError('resource_missing', 'No ticket has this code.', 'code');
    return ticketView(row);
  }

  async forOrders(ctx: RequestContext, orderIds: string[]): Promise<TicketInit[]> {
    const valid = orderIds.filter((id) => isUuid(id));
    return (await this.repository.forOrders(ctx.organisationId, valid)).map(ticketView);
  }

  async issueForOrder(ctx: RequestContext, request: IssueRequest): Promise<TicketInit[]> {
    if (!isUuid(request.orderId)) throw new ApiError('parameter_invalid', 'order_id must be a uuid.', 'order_id');
    if (isDryRun(ctx)) throw new ApiError('parameter_invalid', 'Test-mode checkouts issue no tickets.', 'order_id');
    const planned = this.plan(ctx, request);

    const rows = await inTransaction(this.pool, async (client) => {
      await this.repository.lockOrder(client, request.orderId);
      const existing = await this.repository.forOrders(ctx.organisationId, [request.orderId], client);
      if (existing.length > 0) return existing;
      const issued = await this.repository.insertMany(client, planned);
      for (const row of issued) {
        await emitEvent(client, { type: 'ticket.issued', organisationId: ctx.organisationId, schema: gen.tickets.TicketSchema, view: ticketView(row), partitionKey: `ticket:${row.id}` });
      }
      return issued;
    });
    return rows.map(ticketView);
  }

  /**
   * Marks an order's tickets refunded (orders calls this once the money is
   * back). Idempotent: the answer is the named tickets (or every ticket of
   * the order) that are refunded now, whether this call or an earlier one
   * refunded them. No event: `order.refunded` carries the ticket ids.
   */
  async refundForOrder(ctx: RequestContext, request: RefundRequest): Promise<TicketInit[]> {
    if (!isUuid(request.orderId)) throw new ApiError('parameter_invalid', 'order_id must be a uuid.', 'order_id');
    if (request.ticketIds.some((id) => id <= 0n || id >= 2n ** 63n)) throw new ApiError('parameter_invalid', 'ticket_ids must be positive ticket ids.', 'ticket_ids');
    if (isDryRun(ctx)) throw new ApiError('parameter_invalid', 'Test-mode calls refund nothing.', 'order_id');
    const named = request.ticketIds.length > 0 ? new Set(request.ticketIds.map(String)) : undefined;
    const rows = await inTransaction(this.pool, async (client) => {
      await this.repository.lockOrder(client, request.orderId);
      await this.repository.markRefunded(client, ctx.organisationId, request.orderId, named ? [...named] : null);
      return this.repository.forOrders(ctx.organisationId, [request.orderId], client);
    });
    return rows.filter((row) => row.status === 'refunded' && (!named || named.has(row.id))).map(ticketView);
  }

  /** One ticket per unit, in line order, each with its own barcode. */
  private plan(ctx: RequestContext, request: IssueRequest): NewTicket[] {
    if (request.lines.length === 0) throw new ApiError('parameter_missing', 'An order needs at least one line.', 'lines');
    const units = request.lines.reduce((sum, line) => sum + line.quantity, 0);
    if (request.lines.some((line) => line.quantity < 1) || units > MAX_TICKETS_PER_ORDER) {
      throw new ApiError('parameter_invalid', `Each line needs a quantity of at least 1, and at most ${MAX_TICKETS_PER_ORDER} tickets in all.`, 'lines');
    }
    const tickets: NewTicket[] = [];
    for (const line of request.lines) {
      let priceCents: number;
      try {
        priceCents = parseCents(line.unitPrice);
      } catch {
        throw new ApiError('parameter_invalid', 'unit_price must be a decimal amount like "49.50".', 'lines');
      }
      for (let unit = 0; unit < line.quantity; unit += 1) {
        tickets.push({
          organisation_id: String(ctx.organisationId),
          barcode: newBarcode(),
          order_id: request.orderId,
          position: tickets.length,
          event_id: request.eventId.toString(),
          ticket_type_id: line.ticketTypeId.toString(),
          pool_id: line.poolId.toString(),
          ticket_type_name: line.ticketTypeName,
          attendee_first_name: request.attendee?.firstName ?? null,
          attendee_last_name: request.attendee?.lastName ?? null,
          attendee_email: request.attendee?.email ?? null,
          price_cents: String(priceCents),
          comp: false,
          comp_batch_id: null,
        });
      }
    }
    return tickets;
  }
}

export type { TicketRow };
