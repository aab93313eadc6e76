/** gRPC handlers of the orders service. Methods not listed answer UNIMPLEMENTED. */
import type { gen, ServiceHandlers } from '@partner-api/shared';

type OrdersMethods = (typeof gen.orders.OrdersService)['method'];

export function ordersHandlers(): Partial<ServiceHandlers<OrdersMethods>> {
  return {};
}
