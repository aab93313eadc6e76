/** Starts the tickets service (tickets, attendees, check-ins, transfers, comps); tests call this and own its life. */
import { createServiceClient, gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { TicketsConfig } from './config';
import { Attendees } from './domain/attendees';
import { CheckIns } from './domain/check-ins';
import { EventDirectory } from './domain/event-directory';
import { Tickets } from './domain/tickets';
import { ticketsHandlers } from './grpc/handlers';
import { TicketRepository } from './storage/ticket-repository';

export const SCHEMA = 'tickets';

export async function startTickets(config: TicketsConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('tickets', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const inventory = createServiceClient(gen.inventory.InventoryService, config.INVENTORY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('service clients', () => inventory.close());

  const repository = new TicketRepository(pool);
  const events = new EventDirectory(inventory, config.EVENT_CACHE_MS);
  const handlers = ticketsHandlers(new Tickets(pool, repository), new Attendees(repository, events), new CheckIns(pool, repository, events));
  await runtime.serveGrpc(gen.tickets.TicketsService, handlers, config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
