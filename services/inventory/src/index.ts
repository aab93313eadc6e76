export { startInventory, SCHEMA } from './server';
export { loadInventoryConfig, type InventoryConfig } from './config';
export { seedDemoCatalog } from './storage/demo-seed';
/** Where stock lives in Redis, for tools and tests that look at it from outside. */
export { availabilityKey } from './storage/stock-keys';
export { expiryKey, holdKey } from './storage/hold-book';
