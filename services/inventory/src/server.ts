/** Starts the inventory service; tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { InventoryConfig } from './config';
import { Catalog } from './domain/catalog';
import { inventoryHandlers } from './grpc/handlers';
import { CatalogRepository } from './storage/catalog-repository';

export const SCHEMA = 'inventory';

export async function startInventory(config: InventoryConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('inventory', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const catalog = new Catalog(new CatalogRepository(pool), { publicSiteUrl: config.PUBLIC_SITE_URL });
  await runtime.serveGrpc(gen.inventory.InventoryService, inventoryHandlers(catalog), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
