export { startOrders, startOrdersService, SCHEMA, type RunningOrders } from './server';
export { loadOrdersConfig, type OrdersConfig } from './config';
