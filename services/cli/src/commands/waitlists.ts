/** Operator views and actions on an event's waiting list, through the inventory service. */
import type { Command } from 'commander';
import { action, positiveId, positiveInt } from '../context';

export function registerWaitlists(program: Command): void {
  const waitlist = program.command('waitlist').description('waiting lists');
  waitlist
    .command('list')
    .argument('<event-id-or-slug>', 'event id or slug')
    .description('the entries of an event’s waiting list in join order, with their state (waiting, offered, purchased, lapsed)')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--json', 'one JSON object per entry instead of a table')
    .action(
      action(async (ctx, event: string, options: { org: number; json?: boolean }) => {
        const { data } = await ctx.inventory.listWaitlist({ eventIdOrSlug: event }, ctx.asOrganisation(options.org));
        const rows = data.map((entry) => ({
          id: entry.id.toString(),
          pool_id: entry.poolId.toString(),
          ticket_type_id: entry.ticketTypeId.toString(),
          email: entry.email,
          quantity: entry.quantity,
          state: entry.state,
          offered: entry.offeredQuantity ?? null,
          offer_expires_at: entry.offerExpiresAt ?? null,
          offer_id: entry.holdId ?? null,
          joined_at: entry.createdAt,
        }));
        if (options.json) rows.forEach((row) => console.log(JSON.stringify(row)));
        else if (rows.length === 0) console.log('nobody is waiting');
        else console.table(rows);
      }),
    );
  waitlist
    .command('release')
    .argument('<event-id-or-slug>', 'event id or slug')
    .description('offer up to <count> tickets now on sale in a pool to its waiting list (as many as it asks for); waitlist.released fires for what is offered')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--pool <id>', 'pool id', positiveId)
    .requiredOption('--count <n>', 'most tickets to move', positiveInt)
    .action(
      action(async (ctx, event: string, options: { org: number; pool: bigint; count: number }) => {
        const released = await ctx.inventory.releaseWaitlist({ eventIdOrSlug: event, poolId: options.pool, count: BigInt(options.count) }, ctx.asOrganisation(options.org));
        console.log(JSON.stringify({ object: 'waitlist_release', event_id: Number(released.eventId), pool_id: Number(released.poolId), released_count: Number(released.releasedCount) }));
      }),
    );
}
