/** Starts the inventory service; tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { InventoryConfig } from './config';
import { Catalog } from './domain/catalog';
import { CatalogAdmin } from './domain/catalog-admin';
import { inventoryHandlers } from './grpc/handlers';
import { CatalogRepository } from './storage/catalog-repository';
import { StockStore } from './storage/stock-store';

export const SCHEMA = 'inventory';

export async function startInventory(config: InventoryConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('inventory', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const redis = runtime.redis(config.REDIS_URL);
  const stock = new StockStore(redis);
  const catalog = new Catalog(new CatalogRepository(pool), stock, { publicSiteUrl: config.PUBLIC_SITE_URL });
  const admin = new CatalogAdmin(pool, catalog, stock);
  await runtime.serveGrpc(gen.inventory.InventoryService, inventoryHandlers(catalog, admin), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
