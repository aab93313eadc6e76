/**
 * Venues' seating plans, through the inventory service: import a plan
 * document from a file as the venue's next version, export a version as
 * stored, bind a seated pool to a plan, or print a demo plan to start from. Venues are platform-wide, so
 * these commands act for no one organisation.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { demoSeatingPlans, operatorContext, randomBase62 } from '@partner-api/shared';
import { action, positiveId, positiveInt } from '../context';

const platformCall = () => operatorContext(undefined, `cli_${randomBase62(16)}`);

async function readDocument(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
}

const demoName = (value: string) => {
  if (!(value in demoSeatingPlans)) throw new InvalidArgumentError(`expected one of ${Object.keys(demoSeatingPlans).join(', ')}`);
  return value as keyof typeof demoSeatingPlans;
};

/** Indented JSON with a final newline, as an operator keeps it in a file. */
const pretty = (json: string) => `${JSON.stringify(JSON.parse(json), null, 2)}\n`;

export function registerSeatingPlans(program: Command): void {
  const plans = program.command('seating-plan').description("venues' seating plans (sections, rows and seats), versioned");
  plans
    .command('import')
    .argument('<file>', 'the plan document (JSON)')
    .description("check a plan document and store it as the venue's next version (the latest version's document again adds none)")
    .requiredOption('--venue <id>', 'venue id', positiveId)
    .action(
      action(async (ctx, file: string, options: { venue: bigint }) => {
        const documentJson = await readDocument(file);
        const { plan, created } = await ctx.inventory.importSeatingPlan({ venueId: options.venue, documentJson }, platformCall());
        console.log(JSON.stringify({ object: 'seating_plan', venue_id: Number(plan!.venueId), version: plan!.version, seat_count: plan!.seatCount, created_at: plan!.createdAt, created }));
      }),
    );
  plans
    .command('export')
    .description('print a version of the venue’s plan (the latest by default) as stored, ready to edit and import again')
    .requiredOption('--venue <id>', 'venue id', positiveId)
    .option('--version <n>', 'plan version', positiveInt)
    .option('--output <file>', 'write to this file instead of stdout')
    .action(
      action(async (ctx, options: { venue: bigint; version?: number; output?: string }) => {
        const plan = await ctx.inventory.getSeatingPlan({ venueId: options.venue, version: options.version }, platformCall());
        if (options.output) await writeFile(options.output, pretty(plan.documentJson));
        else process.stdout.write(pretty(plan.documentJson));
      }),
    );
  plans
    .command('bind')
    .description("bind a seated pool to a version of its event's venue plan (the latest by default), every section or some; its capacity becomes their seats")
    .requiredOption('--pool <id>', 'pool id', positiveId)
    .option('--version <n>', 'plan version', positiveInt)
    .option('--sections <ids>', 'section ids, comma-separated (default: every section)', (value: string) => value.split(',').map((id) => id.trim()).filter(Boolean))
    .action(
      action(async (ctx, options: { pool: bigint; version?: number; sections?: string[] }) => {
        const bound = await ctx.inventory.bindSeatingPlan({ poolId: options.pool, version: options.version, sections: options.sections ?? [] }, platformCall());
        console.log(
          JSON.stringify({ object: 'pool_seating', pool_id: Number(bound.poolId), venue_id: Number(bound.venueId), version: bound.version, sections: bound.sections, seat_count: bound.seatCount }),
        );
      }),
    );
  plans
    .command('demo')
    .argument('<name>', `a demo plan: ${Object.keys(demoSeatingPlans).join(' or ')}`, demoName)
    .description('print a demo plan document (the demo venues’ layouts) to start from')
    .action(
      action(async (_ctx, name: keyof typeof demoSeatingPlans) => {
        process.stdout.write(`${JSON.stringify(demoSeatingPlans[name](), null, 2)}\n`);
      }),
    );
}
