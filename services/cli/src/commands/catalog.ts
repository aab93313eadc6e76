/**
 * Catalog operations over the inventory service's admin RPCs, so every
 * change writes its webhook event (event.published, event.updated, …)
 * through inventory's outbox. Options are named after the API fields.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { gen, toApiJson } from '@partner-api/shared';
import type { DescMessage, Message } from '@bufbuild/protobuf';
import { action, positiveInt, type CliContext } from '../context';

const int = (value: string) => {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return BigInt(value);
};
const list = (value: string) => value.split(',').map((item) => item.trim()).filter(Boolean);
const num = (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new InvalidArgumentError('expected a number');
  return parsed;
};
const bool = (value: string) => {
  if (value !== 'true' && value !== 'false') throw new InvalidArgumentError('expected true or false');
  return value === 'true';
};
const print = (schema: DescMessage, message: Message) => console.log(JSON.stringify(toApiJson(schema, message), null, 2));

type Options = Record<string, unknown> & { org: number };

/**
 * The options minus `--org`, as a message's fields: commander's camelCase
 * names are the messages' field names, and create() ignores the rest.
 */
function fieldsOf(options: Options): never {
  const { org: _org, ...fields } = options;
  return fields as never;
}

/** Adds `--org`, required by every catalog command. */
const withOrg = (command: Command) =>
  command.requiredOption('--org <id>', 'organisation id', positiveInt);

function eventFieldOptions(command: Command): Command {
  return command
    .option('--slug <slug>')
    .option('--title <title>')
    .option('--summary <text>', 'empty clears it')
    .option('--description <text>', 'empty clears it')
    .option('--starts-at <time>', 'ISO-8601 UTC')
    .option('--ends-at <time>', 'ISO-8601 UTC; empty clears it')
    .option('--timezone <iana>')
    .option('--doors <text>', 'e.g. 7:00pm')
    .option('--image-url <url>')
    .option('--on-sale-at <time>')
    .option('--venue-id <id>', 'venue', int)
    .option('--categories <list>', 'comma-separated category slugs', list);
}

const eventFields = (options: Options): never =>
  ({
    ...(fieldsOf(options) as object),
    setCategories: options.categories !== undefined,
    categories: (options.categories as string[] | undefined) ?? [],
  }) as never;

function venueFieldOptions(command: Command): Command {
  return command
    .option('--name <name>')
    .option('--slug <slug>')
    .option('--line1 <text>')
    .option('--line2 <text>')
    .option('--locality <text>')
    .option('--state <text>')
    .option('--postal-code <code>')
    .option('--country <code>', 'ISO country code')
    .option('--lat <n>', 'latitude', num)
    .option('--lng <n>', 'longitude', num)
    .option('--url <url>')
    .option('--phone <phone>');
}

function ticketTypeFieldOptions(command: Command): Command {
  return command
    .option('--name <name>')
    .option('--description <text>')
    .option('--price <amount>', 'fee-inclusive, e.g. 89.50')
    .option('--booking-fee <amount>', 'part of the price')
    .option('--gst-applies <bool>', 'true or false', bool)
    .option('--min-per-order <n>', 'minimum per order', (value) => Number(int(value)))
    .option('--max-per-order <n>', 'maximum per order', (value) => Number(int(value)))
    .option('--sale-starts-at <time>')
    .option('--sale-ends-at <time>')
    .option('--hidden <bool>', 'true or false', bool)
    .option('--seated <bool>', 'true or false', bool)
    .option('--pool-ids <list>', 'pools it sells from, default first', (value) => list(value).map(int));
}

const run = <Target extends string | bigint = string>(work: (ctx: CliContext, options: Options, target?: Target) => Promise<void>) =>
  action(async (ctx, first: unknown, second: unknown) => {
    // Commander passes (target, options) when the command takes an argument (an id parsed to a bigint), (options) otherwise.
    const [target, options] = typeof first === 'string' || typeof first === 'bigint' ? [first as Target, second as Options] : [undefined, first as Options];
    await work(ctx, options, target);
  });

export function registerCatalog(program: Command): void {
  const venue = program.command('venue').description('venues (platform-wide)');
  withOrg(venueFieldOptions(venue.command('create'))).action(
    run(async (ctx, options) => print(gen.inventory.VenueSchema, await ctx.inventory.upsertVenue({ fields: fieldsOf(options) }, ctx.asOrganisation(options.org)))),
  );
  withOrg(venueFieldOptions(venue.command('update').argument('<id>', 'venue id', int))).option('--removed <bool>', 'true or false', bool).action(
    run<bigint>(async (ctx, options, id) =>
      print(gen.inventory.VenueSchema, await ctx.inventory.upsertVenue({ id, fields: fieldsOf(options) }, ctx.asOrganisation(options.org))),
    ),
  );

  const event = program.command('event').description('events');
  withOrg(eventFieldOptions(event.command('create').description('create a draft event'))).action(
    run(async (ctx, options) =>
      print(gen.inventory.EventSchema, await ctx.inventory.upsertEvent({ fields: eventFields(options) }, ctx.asOrganisation(options.org))),
    ),
  );
  withOrg(eventFieldOptions(event.command('update').argument('<id-or-slug>').description('change details (event.updated when published)'))).action(
    run(async (ctx, options, id) =>
      print(gen.inventory.EventSchema, await ctx.inventory.upsertEvent({ idOrSlug: id, fields: eventFields(options) }, ctx.asOrganisation(options.org))),
    ),
  );
  for (const [name, statusAction, description] of [
    ['publish', 'publish', 'make public (event.published)'],
    ['unpublish', 'unpublish', 'back to draft'],
    ['submit', 'submit_for_review', 'hold for platform review'],
    ['cancel', 'cancel', 'cancel (event.cancelled)'],
    ['sold-out', 'mark_sold_out', 'mark sold out (event.sold_out)'],
  ] as const) {
    withOrg(event.command(name).argument('<id-or-slug>').description(description)).action(
      run(async (ctx, options, id) =>
        print(gen.inventory.EventSchema, await ctx.inventory.changeEventStatus({ idOrSlug: id!, action: statusAction }, ctx.asOrganisation(options.org))),
      ),
    );
  }

  const pool = program.command('pool').description('capacity pools');
  withOrg(pool.command('create'))
    .requiredOption('--event <id-or-slug>')
    .requiredOption('--name <name>')
    .option('--capacity <n>', 'tickets', int)
    .option('--uncapped', 'no capacity limit')
    .action(
      run(async (ctx, options) =>
        print(
          gen.inventory.PoolSchema,
          await ctx.inventory.upsertPool(
            { eventIdOrSlug: options.event as string, fields: { name: options.name as string, capacity: options.capacity as bigint | undefined, uncapped: Boolean(options.uncapped) } },
            ctx.asOrganisation(options.org),
          ),
        ),
      ),
    );
  withOrg(pool.command('update').argument('<id>', 'pool id', int))
    .option('--name <name>')
    .option('--capacity <n>', 'tickets', int)
    .option('--uncapped', 'no capacity limit')
    .action(
      run<bigint>(async (ctx, options, id) =>
        print(
          gen.inventory.PoolSchema,
          await ctx.inventory.upsertPool(
            { id, fields: { name: options.name as string | undefined, capacity: options.capacity as bigint | undefined, uncapped: Boolean(options.uncapped) } },
            ctx.asOrganisation(options.org),
          ),
        ),
      ),
    );

  const ticketType = program.command('ticket-type').description('ticket types');
  withOrg(ticketTypeFieldOptions(ticketType.command('create')))
    .requiredOption('--event <id-or-slug>')
    .action(
      run(async (ctx, options) =>
        print(
          gen.inventory.TicketTypeSchema,
          await ctx.inventory.upsertTicketType({ eventIdOrSlug: options.event as string, fields: fieldsOf(options) }, ctx.asOrganisation(options.org)),
        ),
      ),
    );
  withOrg(ticketTypeFieldOptions(ticketType.command('update').argument('<id>', 'ticket type id', int))).action(
    run<bigint>(async (ctx, options, id) =>
      print(gen.inventory.TicketTypeSchema, await ctx.inventory.upsertTicketType({ id, fields: fieldsOf(options) }, ctx.asOrganisation(options.org))),
    ),
  );
}
