/** gRPC handlers: decode, call the domain, return the API-shaped message. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { Catalog } from '../domain/catalog';

type InventoryMethods = (typeof gen.inventory.InventoryService)['method'];

export function inventoryHandlers(catalog: Catalog): Partial<ServiceHandlers<InventoryMethods>> {
  return {
    getEvent: (request, ctx) => catalog.getEvent(ctx, request.idOrSlug),
  };
}
