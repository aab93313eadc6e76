/** Operator actions on one ticket, through the tickets service. */
import type { Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, splitName, toApiJson } from '@partner-api/shared';
import { action, positiveId, positiveInt } from '../context';

export function registerTickets(program: Command): void {
  const ticket = program.command('ticket').description('tickets');
  ticket
    .command('transfer')
    .argument('<ticket-id>', 'ticket id', positiveId)
    .description('give a valid ticket to another attendee: the barcode rotates and ticket.transferred fires')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--email <email>', "the new attendee's email")
    .option('--name <name>', "the new attendee's name (split as comp guests' names are)")
    .action(
      action(async (ctx, ticketId: bigint, options: { org: number; email: string; name?: string }) => {
        const name = splitName(options.name);
        const moved = await ctx.tickets.transferTicket(
          { id: ticketId, attendee: { email: options.email, firstName: name.firstName ?? undefined, lastName: name.lastName ?? undefined } },
          ctx.asOrganisation(options.org),
        );
        console.log(JSON.stringify(toApiJson(gen.tickets.TicketSchema, create(gen.tickets.TicketSchema, moved))));
      }),
    );
  ticket
    .command('void')
    .argument('<ticket-id>', 'ticket id', positiveId)
    .description('take a valid ticket out of use: check-in answers ticket_void, the attendee list leaves it out, its place goes back on sale')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--reason <reason>', 'why, kept with the ticket (at most 500 characters)')
    .action(
      action(async (ctx, ticketId: bigint, options: { org: number; reason?: string }) => {
        const voided = await ctx.tickets.voidTicket({ id: ticketId, reason: options.reason ?? '' }, ctx.asOrganisation(options.org));
        console.log(JSON.stringify(toApiJson(gen.tickets.TicketSchema, create(gen.tickets.TicketSchema, voided))));
      }),
    );
}
