/**
 * Refunds, through the orders service (a platform operation; partners
 * cannot refund through the API), and the order's ticket emails, through
 * the tickets service: list them, or resend the tickets to the buyer
 * (rate-limited per order; recorded in the organisation's audit log).
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { AuditRepository } from '@partner-api/dashboard';
import { gen, toApiJson } from '@partner-api/shared';
import { action, positiveInt } from '../context';

const ticketIds = (value: string) => {
  const ids = value.split(',').map((id) => id.trim());
  if (ids.length === 0 || ids.some((id) => !/^[1-9][0-9]*$/.test(id))) throw new InvalidArgumentError('expected ticket ids separated by commas, e.g. 1001,1002');
  return ids.map(BigInt);
};

export function registerOrders(program: Command): void {
  const order = program.command('order').description('orders');
  order
    .command('emails <orderId>')
    .description("the order's ticket emails (to the buyer, resends), with their state and any failure")
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, orderId: string, options: { org: number }) => {
        const asOrganisation = ctx.asOrganisation(options.org);
        const { data } = await ctx.tickets.listOrderMails({ orderId }, asOrganisation);
        // No emails may mean no such order: the orders service says which (resource_missing), rather than an empty answer.
        if (data.length === 0) await ctx.orders.getOrder({ id: orderId }, asOrganisation);
        for (const mail of data) console.log(JSON.stringify(toApiJson(gen.tickets.TicketMailSchema, create(gen.tickets.TicketMailSchema, mail))));
      }),
    );
  order
    .command('resend-email <orderId>')
    .description("email the order's tickets to its buyer again (at most MAIL_RESENDS_PER_HOUR per order in an hour)")
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, orderId: string, options: { org: number }) => {
        const mail = await ctx.tickets.resendOrderMail({ orderId, requestedBy: 'partnerctl' }, ctx.asOrganisation(options.org));
        await new AuditRepository(ctx.pool('dashboard')).append({
          organisationId: options.org,
          memberId: null,
          actor: 'partnerctl',
          action: 'order.email_resent',
          target: `order ${orderId}`,
          detail: { to: mail.recipient, email_id: String(mail.id) },
          ip: null,
          userAgent: null,
        });
        console.log(JSON.stringify(toApiJson(gen.tickets.TicketMailSchema, create(gen.tickets.TicketMailSchema, mail))));
      }),
    );
  order
    .command('refund <orderId>')
    .description('refund an order, whole or by tickets: the money goes back through the card processor, the tickets become refunded and order.refunded fires')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--tickets <ids>', 'refund only these tickets (comma-separated ids); default: every valid ticket', ticketIds)
    .option('--amount <amount>', "money to return, e.g. 25.00; default: the tickets' share of what was paid")
    .option('--reason <text>', 'kept with the refund and sent to the processor')
    .option('--no-restock', 'keep the tickets off sale (default: they go back to their pools)')
    .option('--refund-id <uuid>', 'repeat a refund that did not finish: the same id never refunds twice (default: a new id, printed)')
    .action(
      action(async (ctx, orderId: string, options: { org: number; tickets?: bigint[]; amount?: string; reason?: string; restock: boolean; refundId?: string }) => {
        const refundId = options.refundId ?? randomUUID();
        // Printed first, so an interrupted or failed call can be repeated with --refund-id.
        console.error(`refund ${refundId}`);
        const order = await ctx.orders.refundOrder(
          { id: orderId, ticketIds: options.tickets ?? [], refundId, amount: options.amount, reason: options.reason, restock: options.restock },
          ctx.asOrganisation(options.org),
        );
        console.log(JSON.stringify(toApiJson(gen.orders.OrderSchema, create(gen.orders.OrderSchema, order))));
      }),
    );
}
