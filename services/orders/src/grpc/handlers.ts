/** gRPC handlers of the orders service. Methods not listed answer UNIMPLEMENTED. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { CheckoutSessions } from '../domain/checkout-sessions';

type OrdersMethods = (typeof gen.orders.OrdersService)['method'];

export function ordersHandlers(sessions: CheckoutSessions): Partial<ServiceHandlers<OrdersMethods>> {
  return {
    createCheckoutSession: (request, ctx) => sessions.create(ctx, request),
    getCheckoutSession: (request, ctx) => sessions.get(ctx, request.id),
  };
}
