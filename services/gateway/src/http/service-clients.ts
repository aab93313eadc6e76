/** One gRPC client per downstream service, created once per gateway process. */
import { createServiceClient, gen, type ServiceClient } from '@partner-api/shared';

export interface ServiceClients {
  inventory: ServiceClient<(typeof gen.inventory.InventoryService)['method']>;
  orders: ServiceClient<(typeof gen.orders.OrdersService)['method']>;
  tickets: ServiceClient<(typeof gen.tickets.TicketsService)['method']>;
  webhooks: ServiceClient<(typeof gen.webhooks.WebhooksService)['method']>;
}

export function createServiceClients(addresses: {
  inventory: string;
  orders: string;
  tickets: string;
  webhooks: string;
}): ServiceClients {
  return {
    inventory: createServiceClient(gen.inventory.InventoryService, addresses.inventory),
    orders: createServiceClient(gen.orders.OrdersService, addresses.orders),
    tickets: createServiceClient(gen.tickets.TicketsService, addresses.tickets),
    webhooks: createServiceClient(gen.webhooks.WebhooksService, addresses.webhooks),
  };
}

export function closeServiceClients(clients: ServiceClients): void {
  for (const client of Object.values(clients)) client.close();
}
