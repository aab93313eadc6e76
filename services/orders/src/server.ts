/** Starts the orders service (checkout sessions, orders, coupons, payments); tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { OrdersConfig } from './config';
import { ordersHandlers } from './grpc/handlers';

export const SCHEMA = 'orders';

export async function startOrders(config: OrdersConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('orders', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  await runtime.serveGrpc(gen.orders.OrdersService, ordersHandlers(), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
