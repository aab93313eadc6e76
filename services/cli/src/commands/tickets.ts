/** Operator actions on one ticket, through the tickets service. */
import { InvalidArgumentError, type Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import { splitName } from '@partner-api/tickets';
import { action, positiveInt } from '../context';

const positiveId = (value: string) => {
  if (!/^[1-9][0-9]{0,18}$/.test(value)) throw new InvalidArgumentError('expected a ticket id (a positive whole number)');
  return BigInt(value);
};
export function registerTickets(program: Command): void {
  const ticket = program.command('ticket').description('tickets');
  ticket
    .command('transfer <ticket-id>')
    .description('give a valid ticket to another attendee: the barcode rotates and ticket.transferred fires')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--email <email>', "the new attendee's email")
    .option('--name <name>', "the new attendee's name (split as comp guests' names are)")
    .action(
      action(async (ctx, ticketId: string, options: { org: number; email: string; name?: string }) => {
        const name = splitName(options.name);
        const moved = await ctx.tickets.transferTicket(
          { id: positiveId(ticketId), attendee: { email: options.email, firstName: name.firstName ?? undefined, lastName: name.lastName ?? undefined } },
          ctx.asOrganisation(options.org),
        );
        console.log(JSON.stringify(toApiJson(gen.tickets.TicketSchema, create(gen.tickets.TicketSchema, moved))));
      }),
    );
}
