/** Starts the tickets service (tickets, attendees, check-ins, transfers, comps); tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { TicketsConfig } from './config';
import { ticketsHandlers } from './grpc/handlers';

export const SCHEMA = 'tickets';

export async function startTickets(config: TicketsConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('tickets', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  await runtime.serveGrpc(gen.tickets.TicketsService, ticketsHandlers(), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
