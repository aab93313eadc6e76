export { startOrders, SCHEMA } from './server';
export { loadOrdersConfig, type OrdersConfig } from './config';
