export { startInventory, SCHEMA } from './server';
export { loadInventoryConfig, type InventoryConfig } from './config';
export { seedDemoCatalog } from './storage/demo-seed';
