import { runMain } from '@partner-api/shared';
import { loadOrdersConfig } from './config';
import { startOrders } from './server';

runMain(() => startOrders(loadOrdersConfig()));
