/** gRPC handlers of the tickets service. Methods not listed answer UNIMPLEMENTED. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { Attendees } from '../domain/attendees';
import type { CheckIns } from '../domain/check-ins';
import type { CompTickets } from '../domain/comp-tickets';
import type { OrderMailDesk } from '../domain/order-mail-desk';
import type { Tickets } from '../domain/tickets';
import type { Transfers } from '../domain/transfers';
import type { Voids } from '../domain/voids';

type TicketsMethods = (typeof gen.tickets.TicketsService)['method'];

export function ticketsHandlers(
  tickets: Tickets,
  attendees: Attendees,
  checkIns: CheckIns,
  comps: CompTickets,
  transfers: Transfers,
  voids: Voids,
  orderMails: OrderMailDesk,
): Partial<ServiceHandlers<TicketsMethods>> {
  return {
    getTicket: (request, ctx) => tickets.get(ctx, request.id),
    findTicketByCode: (request, ctx) => tickets.findByCode(ctx, request.code),
    listAttendees: (request, ctx) => attendees.list(ctx, request),
    checkIn: (request, ctx) => checkIns.checkIn(ctx, request),
    issueCompTickets: (request, ctx) => comps.issue(ctx, request),
    issueTicketsForOrder: async (request, ctx) => ({ tickets: await tickets.issueForOrder(ctx, request) }),
    listTicketsForOrders: async (request, ctx) => ({ tickets: await tickets.forOrders(ctx, request.orderIds) }),
    transferTicket: (request, ctx) => transfers.transfer(ctx, request),
    voidTicket: (request, ctx) => voids.void(ctx, request),
    refundTickets: async (request, ctx) => ({ refunded: await tickets.refundForOrder(ctx, request) }),
    listOrderMails: async (request, ctx) => ({ data: await orderMails.list(ctx, request.orderId) }),
    resendOrderMail: (request, ctx) => orderMails.resend(ctx, request.orderId, request.requestedBy),
    listFailedMails: async (request, ctx) => ({ data: await orderMails.failed(ctx, request.limit) }),
  };
}
