/** The sites allowed to embed an organisation's checkout, through the orders service. */
import type { Command } from 'commander';
import { create } from '@bufbuild/protobuf';
import { gen, toApiJson } from '@partner-api/shared';
import { action, positiveInt } from '../context';

export function registerChannels(program: Command): void {
  const origin = program
    .command('channel')
    .description('sales channels other than the API')
    .command('origin')
    .description('sites (https://host[:port]) allowed to embed the checkout at /embed/<org>/events/<event>');

  origin
    .command('add')
    .description('allow a site to embed the organisation\'s checkout')
    .argument('<org>', 'organisation id', positiveInt)
    .argument('<origin>', 'the site, e.g. https://shop.example.com')
    .action(
      action(async (ctx, org: number, site: string) => {
        const added = await ctx.orders.addChannelOrigin({ origin: site }, ctx.asOrganisation(org));
        console.log(JSON.stringify(toApiJson(gen.orders.ChannelOriginSchema, create(gen.orders.ChannelOriginSchema, added))));
      }),
    );

  origin
    .command('remove')
    .description('stop a site embedding the checkout (forms already shown there are refused too)')
    .argument('<org>', 'organisation id', positiveInt)
    .argument('<origin>', 'the site, as added')
    .action(
      action(async (ctx, org: number, site: string) => {
        await ctx.orders.removeChannelOrigin({ origin: site }, ctx.asOrganisation(org));
        console.log(JSON.stringify({ removed: site }));
      }),
    );

  origin
    .command('list')
    .description('the sites allowed to embed the organisation\'s checkout')
    .argument('<org>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, org: number) => {
        const { data } = await ctx.orders.listChannelOrigins({}, ctx.asOrganisation(org));
        console.log(JSON.stringify(data.map((row) => toApiJson(gen.orders.ChannelOriginSchema, create(gen.orders.ChannelOriginSchema, row)))));
      }),
    );
}
