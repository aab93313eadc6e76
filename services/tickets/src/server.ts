/** Starts the tickets service (tickets, attendees, check-ins, transfers, comps); tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { TicketsConfig } from './config';
import { Tickets } from './domain/tickets';
import { ticketsHandlers } from './grpc/handlers';
import { TicketRepository } from './storage/ticket-repository';

export const SCHEMA = 'tickets';

export async function startTickets(config: TicketsConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('tickets', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const tickets = new Tickets(pool, new TicketRepository(pool));
  await runtime.serveGrpc(gen.tickets.TicketsService, ticketsHandlers(tickets), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
