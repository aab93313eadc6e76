/** GET /orders and GET /orders/{id}: the organisation's orders, each with its tickets from the tickets service. */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, decodePosition, encodePosition, isUuid, notFound, type gen, type RequestContext } from '@partner-api/shared';
import type { OrderRepository, OrderRow } from '../storage/order-repository';
import type { TicketsClient } from './fulfilment';
import { orderView, type OrderInit, type TicketInit } from './order-view';

type ListRequest = MessageShape<typeof gen.orders.ListOrdersRequestSchema>;

const STATUSES = new Set(['completed', 'refunded', 'all']);

export class Orders {
  constructor(
    private readonly repository: OrderRepository,
    private readonly tickets: TicketsClient,
  ) {}

  async get(ctx: RequestContext, id: string): Promise<OrderInit> {
    const row = isUuid(id) ? await this.repository.find(ctx.organisationId, id) : undefined;
    if (!row) throw notFound('order');
    const [view] = await this.withTickets(ctx, [row]);
    return view!;
  }

  async list(ctx: RequestContext, request: ListRequest): Promise<{ data: OrderInit[]; pageInfo: { hasMore: boolean; nextAfter: string } }> {
    const status = request.status || 'all';
    if (!STATUSES.has(status)) throw new ApiError('parameter_invalid', 'status must be completed, refunded or all.', 'status');
    let updatedSince: Date | undefined;
    if (request.updatedSince) {
      updatedSince = new Date(request.updatedSince);
      if (Number.isNaN(updatedSince.getTime())) throw new ApiError('parameter_invalid', 'updated_since must be an ISO-8601 time.', 'updated_since');
    }
    const limit = Math.min(Math.max(request.page?.limit || 25, 1), 100);
    const position = decodePosition(request.page?.after ?? '', 2);
    if (position && (Number.isNaN(Date.parse(position[0]!)) || !isUuid(position[1]!))) {
      throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');
    }
    const rows = await this.repository.list({
      organisationId: ctx.organisationId,
      eventId: request.eventId?.toString(),
      status: status as 'completed' | 'refunded' | 'all',
      updatedSince,
      before: position && { createdAt: position[0]!, id: position[1]! },
      limit,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    return {
      data: await this.withTickets(ctx, page),
      pageInfo: { hasMore, nextAfter: hasMore && last ? encodePosition([last.created_key, last.id]) : '' },
    };
  }

  /** One call to the tickets service for the whole page. */
  private async withTickets(ctx: RequestContext, rows: OrderRow[]): Promise<OrderInit[]> {
    if (rows.length === 0) return [];
    const { tickets } = await this.tickets.listTicketsForOrders({ orderIds: rows.map((row) => row.id) }, ctx);
    const byOrder = new Map<string, TicketInit[]>();
    for (const ticket of tickets) {
      const list = byOrder.get(ticket.orderId!) ?? [];
      list.push(ticket);
      byOrder.set(ticket.orderId!, list);
    }
    return rows.map((row) => orderView(row, byOrder.get(row.id) ?? []));
  }
}
