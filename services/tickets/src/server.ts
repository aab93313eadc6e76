/** Starts the tickets service (tickets, attendees, check-ins, transfers, voids, refunds, comps); tests call this and own its life. */
import { createMailer, createServiceClient, gen, mailDomain, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { TicketsConfig } from './config';
import { Attendees } from './domain/attendees';
import { CheckIns } from './domain/check-ins';
import { CompTickets } from './domain/comp-tickets';
import { EventDirectory } from './domain/event-directory';
import { GuestEmails } from './domain/guest-emails';
import { Tickets } from './domain/tickets';
import { Transfers } from './domain/transfers';
import { Voids } from './domain/voids';
import { ticketsHandlers } from './grpc/handlers';
import { CompRepository } from './storage/comp-repository';
import { TicketRepository } from './storage/ticket-repository';

export const SCHEMA = 'tickets';

export async function startTickets(config: TicketsConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('tickets', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  const inventory = createServiceClient(gen.inventory.InventoryService, config.INVENTORY_GRPC_ADDR);
  runtime.lifecycle.onShutdown('service clients', () => inventory.close());
  const mailer = createMailer(config.GUEST_MAILER, config, runtime.logger);
  runtime.lifecycle.onShutdown('guest mailer', () => mailer.close());

  const repository = new TicketRepository(pool);
  const comps = new CompRepository(pool);
  const events = new EventDirectory(inventory, config.EVENT_CACHE_MS);
  const compTickets = new CompTickets(pool, repository, comps, inventory, runtime.logger);
  const voids = new Voids(pool, repository, inventory, runtime.logger);
  const handlers = ticketsHandlers(
    new Tickets(pool, repository),
    new Attendees(repository, events),
    new CheckIns(pool, repository, events),
    compTickets,
    new Transfers(pool, repository),
    voids,
  );
  await runtime.serveGrpc(gen.tickets.TicketsService, handlers, config.GRPC_PORT);
  const guestEmails = new GuestEmails(comps, mailer, runtime.logger, mailDomain(config.MAIL_FROM));
  runtime.every('guest emails', config.COMP_EMAIL_INTERVAL_MS, () => guestEmails.sendDue());
  runtime.every('comp recovery', Math.max(1_000, Math.floor(config.COMP_RECOVERY_AFTER_MS / 4)), () => compTickets.returnStale(config.COMP_RECOVERY_AFTER_MS));
  runtime.every('void restock', Math.max(1_000, Math.floor(config.VOID_RESTOCK_AFTER_MS / 4)), () => voids.restockDue(config.VOID_RESTOCK_AFTER_MS));
  await runtime.ready();
  return runtime;
}
