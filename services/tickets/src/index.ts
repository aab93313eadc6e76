export { startTickets, SCHEMA } from './server';
export { loadTicketsConfig, type TicketsConfig } from './config';
