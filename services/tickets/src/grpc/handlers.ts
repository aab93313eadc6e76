/** gRPC handlers of the tickets service. Methods not listed answer UNIMPLEMENTED. */
import type { gen, ServiceHandlers } from '@partner-api/shared';

type TicketsMethods = (typeof gen.tickets.TicketsService)['method'];

export function ticketsHandlers(): Partial<ServiceHandlers<TicketsMethods>> {
  return {};
}
