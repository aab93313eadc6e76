/** Starts the tickets service (tickets, attendees, check-ins, transfers, voids, refunds, comps); tests call this and own its life. */
import { createMailer, createServiceClient, gen, mailDomain, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { TicketsConfig } from './config';
import { Attendees } from './domain/attendees';
import { CheckIns } from './domain/check-ins';
import { CompTickets } from './domain/comp-tickets';
import { EventDirectory } from './domain/event-directory';
import { GuestEmails } from './domain/guest-emails';
import { OrderMailDesk } from './domain/order-mail-desk';
import { OrderMailQueue } from './domain/order-mail-queue';
import { TicketMails } from './domain/ticket-mails';
import { Tickets } from './domain/tickets';
import { Transfers } from './domain/transfers';
import { Voids } from './domain/voids';
import { ticketsHandlers } from './grpc/handlers';
import { CompRepository } from './storage/comp-repository';
import { MailRepository } from './storage/mail-repository';
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
  const mails = new MailRepository(pool);
  const events = new EventDirectory(inventory, config.EVENT_CACHE_MS);
  const compTickets = new CompTickets(pool, repository, comps, inventory, runtime.logger);
  const voids = new Voids(pool, repository, inventory, runtime.logger);
  const handlers = ticketsHandlers(
    new Tickets(pool, repository),
    new Attendees(repository, events),
    new CheckIns(pool, repository, events),
    compTickets,
    new Transfers(pool, repository, mails),
    voids,
    new OrderMailDesk(pool, mails, repository, config.MAIL_RESENDS_PER_HOUR),
  );
  await runtime.serveGrpc(gen.tickets.TicketsService, handlers, config.GRPC_PORT);
  const guestEmails = new GuestEmails(comps, mailer, runtime.logger, mailDomain(config.MAIL_FROM));
  runtime.every('guest emails', config.COMP_EMAIL_INTERVAL_MS, () => guestEmails.sendDue());
  const ticketMails = new TicketMails(mails, repository, inventory, mailer, runtime.logger, {
    pagesBaseUrl: config.CHECKOUT_BASE_URL,
    ticketPageSecret: config.TICKET_PAGE_SECRET,
    messageIdDomain: mailDomain(config.MAIL_FROM),
    leaseMs: config.TICKET_MAIL_LEASE_MS,
  });
  runtime.every('ticket emails', config.TICKET_MAIL_INTERVAL_MS, () => ticketMails.sendDue());
  // Every completed order's buyer email is queued from order.completed (D410).
  const orderMailQueue = new OrderMailQueue(mails);
  await runtime.consume(
    config,
    { groupId: config.ORDER_MAIL_GROUP_ID, sessionTimeoutMs: config.ORDER_MAIL_SESSION_TIMEOUT_MS, fromBeginning: false },
    (messages) => orderMailQueue.queueFrom(messages),
  );
  runtime.every('comp recovery', Math.max(1_000, Math.floor(config.COMP_RECOVERY_AFTER_MS / 4)), () => compTickets.returnStale(config.COMP_RECOVERY_AFTER_MS));
  runtime.every('void restock', Math.max(1_000, Math.floor(config.VOID_RESTOCK_AFTER_MS / 4)), () => voids.restockDue(config.VOID_RESTOCK_AFTER_MS));
  await runtime.ready();
  return runtime;
}
