export { startOrders, startOrdersService, SCHEMA, type RunningOrders, type OrdersDependencies } from './server';
export { loadOrdersConfig, type OrdersConfig } from './config';
