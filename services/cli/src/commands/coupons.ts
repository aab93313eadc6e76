/** Coupons for an event, through the orders service. */
import type { Command } from 'commander';
import { gen, toApiJson } from '@partner-api/shared';
import { create } from '@bufbuild/protobuf';
import { action, positiveInt } from '../context';

export function registerCoupons(program: Command): void {
  program
    .command('coupon')
    .description('coupons')
    .command('set')
    .description('create or replace a coupon code for an event')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--event <id>', 'event id', positiveInt)
    .requiredOption('--code <code>', 'the code customers type (case-insensitive)')
    .option('--percent <n>', 'percent off, 1 to 100')
    .option('--amount <amount>', 'amount off, e.g. 10.00')
    .option('--valid-from <time>', 'ISO-8601')
    .option('--valid-until <time>', 'ISO-8601')
    .option('--max-uses <n>', 'how many orders may use it', positiveInt)
    .action(
      action(async (ctx, options: { org: number; event: number; code: string; percent?: string; amount?: string; validFrom?: string; validUntil?: string; maxUses?: number }) => {
        if ((options.percent === undefined) === (options.amount === undefined)) throw new Error('give exactly one of --percent and --amount');
        const coupon = await ctx.orders.upsertCoupon(
          {
            coupon: {
              code: options.code,
              eventId: BigInt(options.event),
              kind: options.percent !== undefined ? 'percent' : 'amount',
              value: options.percent ?? options.amount!,
              validFrom: options.validFrom,
              validUntil: options.validUntil,
              maxUses: options.maxUses,
            },
          },
          ctx.asOrganisation(options.org),
        );
        console.log(JSON.stringify(toApiJson(gen.orders.CouponSchema, create(gen.orders.CouponSchema, coupon))));
      }),
    );
}
