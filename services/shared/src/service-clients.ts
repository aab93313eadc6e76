/** The typed gRPC client of each service, declared once for every caller. */
import type * as gen from './gen';
import type { ServiceClient } from './grpc';

export type GatewayClient = ServiceClient<(typeof gen.gateway.GatewayService)['method']>;
export type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;
export type OrdersClient = ServiceClient<(typeof gen.orders.OrdersService)['method']>;
export type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;
export type WebhooksClient = ServiceClient<(typeof gen.webhooks.WebhooksService)['method']>;
