import { runMain } from '@partner-api/shared';
import { loadInventoryConfig } from './config';
import { startInventory } from './server';

runMain(() => startInventory(loadInventoryConfig()));
