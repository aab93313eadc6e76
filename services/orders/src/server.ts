/** Starts the orders service (checkout sessions, orders, coupons, payments); tests call this and own its life. */
import { createServiceClient, gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { OrdersConfig } from './config';
import { CheckoutSessions } from './domain/checkout-sessions';
import { Coupons } from './domain/coupons';
import { ordersHandlers } from './grpc/handlers';
import { CheckoutRepository } from './storage/checkout-repository';

export const SCHEMA = 'orders';

export async function startOrders(config: OrdersConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('orders', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const inventory = createServiceClient(gen.inventory.InventoryService, config.INVENTORY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('inventory client', () => inventory.close());
  const repository = new CheckoutRepository(pool);
  const sessions = new CheckoutSessions(
    repository,
    inventory,
    { checkoutBaseUrl: config.CHECKOUT_BASE_URL, holdSeconds: config.HOLD_SECONDS },
    runtime.logger,
  );
  await runtime.serveGrpc(gen.orders.OrdersService, ordersHandlers(sessions, new Coupons(repository, inventory)), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
