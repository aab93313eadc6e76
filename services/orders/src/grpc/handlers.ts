/** gRPC handlers of the orders service. Methods not listed answer UNIMPLEMENTED. */
import { ApiError, type gen, type ServiceHandlers } from '@partner-api/shared';
import type { ChannelOrigins } from '../domain/channel-origins';
import type { WaitingRoomAdmin } from '../domain/waiting-room-admin';
import type { CheckoutSessions } from '../domain/checkout-sessions';
import type { Coupons } from '../domain/coupons';
import type { Orders } from '../domain/orders';
import type { Refunds } from '../domain/refunds';

type OrdersMethods = (typeof gen.orders.OrdersService)['method'];

export function ordersHandlers(sessions: CheckoutSessions, orders: Orders, coupons: Coupons, refunds: Refunds, origins: ChannelOrigins, waitingRooms: WaitingRoomAdmin): Partial<ServiceHandlers<OrdersMethods>> {
  return {
    createCheckoutSession: (request, ctx) => sessions.create(ctx, request),
    getCheckoutSession: (request, ctx) => sessions.get(ctx, request.id),
    abandonCheckoutSession: async (request, ctx) => ({ released: await sessions.abandon(ctx, request.id) }),
    listOrders: (request, ctx) => orders.list(ctx, request),
    getOrder: (request, ctx) => orders.get(ctx, request.id),
    refundOrder: (request, ctx) => refunds.refund(ctx, request),
    upsertCoupon: (request, ctx) => {
      if (!request.coupon) throw new ApiError('parameter_missing', 'coupon is required.', 'coupon');
      return coupons.upsert(ctx, request.coupon);
    },
    addChannelOrigin: (request, ctx) => origins.add(ctx, request.origin),
    removeChannelOrigin: (request, ctx) => origins.remove(ctx, request.origin),
    listChannelOrigins: (_request, ctx) => origins.list(ctx),
    setWaitingRoom: (request, ctx) => waitingRooms.set(ctx, request),
    getWaitingRoom: (request, ctx) => waitingRooms.get(ctx, request.eventIdOrSlug),
  };
}
