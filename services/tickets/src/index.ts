export { startTickets, SCHEMA } from './server';
export { loadTicketsConfig, type TicketsConfig } from './config';
export { splitName } from './domain/comp-rules';
