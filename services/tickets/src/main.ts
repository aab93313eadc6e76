import { runMain } from '@partner-api/shared';
import { loadTicketsConfig } from './config';
import { startTickets } from './server';

runMain(() => startTickets(loadTicketsConfig()));
