/** One gRPC client per downstream service, created once per gateway process. */
import { BackendHealth, createServiceClient, gen, GRPC_CHANNEL_OPTIONS, type InventoryClient, type OrdersClient, type TicketsClient, type WebhooksClient } from '@partner-api/shared';

export interface ServiceClients {
  inventory: InventoryClient;
  orders: OrdersClient;
  tickets: TicketsClient;
  webhooks: WebhooksClient;
}

export type BackendAddresses = Record<keyof ServiceClients, string>;

export function createServiceClients(addresses: BackendAddresses, options: { batching: boolean } = { batching: true }): ServiceClients {
  return {
    // Partners polling the catalog: concurrent reads reach inventory in one round trip per turn (D216).
    inventory: createServiceClient(gen.inventory.InventoryService, addresses.inventory, {
      batched: options.batching ? ['listEvents', 'getEvent', 'listTicketTypes', 'listVenues', 'getVenue'] : [],
    }),
    // Concurrent checkouts reach orders in one round trip per turn (D216).
    orders: createServiceClient(gen.orders.OrdersService, addresses.orders, { batched: options.batching ? ['createCheckoutSession'] : [] }),
    tickets: createServiceClient(gen.tickets.TicketsService, addresses.tickets),
    webhooks: createServiceClient(gen.webhooks.WebhooksService, addresses.webhooks),
  };
}

export function closeServiceClients(clients: ServiceClients): void {
  for (const client of Object.values(clients)) client.close();
}

/** Each backend's health, asked over the same kind of load-balanced target as its client. */
export function createBackendHealth(addresses: BackendAddresses, intervalMs: number): BackendHealth {
  const service = {
    inventory: gen.inventory.InventoryService.typeName,
    orders: gen.orders.OrdersService.typeName,
    tickets: gen.tickets.TicketsService.typeName,
    webhooks: gen.webhooks.WebhooksService.typeName,
  };
  return new BackendHealth(
    Object.fromEntries(Object.entries(addresses).map(([name, address]) => [name, { address, service: service[name as keyof ServiceClients] }])),
    { intervalMs, deadlineMs: Math.min(2_000, intervalMs), channelOptions: GRPC_CHANNEL_OPTIONS },
  );
}
