/** An event's waiting room in front of its sale pages, through the orders service. */
import type { Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import { action, positiveInt } from '../context';

const print = (room: Parameters<typeof create<typeof gen.orders.WaitingRoomSchema>>[1]) =>
  console.log(JSON.stringify(toApiJson(gen.orders.WaitingRoomSchema, create(gen.orders.WaitingRoomSchema, room))));

export function registerWaitingRooms(program: Command): void {
  const room = program.command('waiting-room').description('the queue in front of an event’s web, storefront and embed sale pages');
  room
    .command('set')
    .argument('<event-id-or-slug>', 'event id or slug')
    .description('turn the queue on or off, and set when it opens and how many visitors it admits per second; unset options keep their value')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--on', 'queue the sale pages')
    .option('--off', 'let every visitor straight through')
    .option('--opens-at <time>', 'ISO 8601 with an offset: visitors before it wait and are put in a random order at it')
    .option('--rate <n|automatic>', 'visitors admitted per second, or automatic')
    .action(
      action(async (ctx, event: string, options: { org: number; on?: boolean; off?: boolean; opensAt?: string; rate?: string }) => {
        if (options.on && options.off) throw new Error('--on and --off cannot be used together');
        const context = ctx.asOrganisation(options.org);
        const current = await ctx.orders.getWaitingRoom({ eventIdOrSlug: event }, context);
        const opensAt = options.opensAt ?? current.opensAt;
        if (!opensAt) throw new Error('--opens-at is required the first time a waiting room is set');
        const updated = await ctx.orders.setWaitingRoom(
          { eventIdOrSlug: event, enabled: options.on ? true : options.off ? false : current.enabled, opensAt, rate: options.rate ?? (current.rate || 'automatic') },
          context,
        );
        print(updated);
      }),
    );
  room
    .command('show')
    .argument('<event-id-or-slug>', 'event id or slug')
    .description('the settings and the queue as it stands: joined, waiting, admitted, passes used, the rate in force')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, event: string, options: { org: number }) => {
        print(await ctx.orders.getWaitingRoom({ eventIdOrSlug: event }, ctx.asOrganisation(options.org)));
      }),
    );
}
