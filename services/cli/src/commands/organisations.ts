import { InvalidArgumentError, type Command } from 'commander';
import { KeyAdmin, KeyRepository, SCOPES } from '@partner-api/gateway';
import { action } from '../context';

const positiveInt = (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a positive integer');
  return parsed;
};

export function registerOrganisations(program: Command): void {
  const org = program.command('org').description('organisations');
  org
    .command('create')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'unique slug')
    .action(
      action(async (ctx, options: { name: string; slug: string }) => {
        const created = await new KeyAdmin(new KeyRepository(ctx.pool('gateway'))).createOrganisation(options.name, options.slug);
        console.log(JSON.stringify(created));
      }),
    );

  const key = program.command('key').description('API keys');
  key
    .command('issue')
    .description('issue a key and print its secret (shown only this once)')
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--name <name>', 'key name', 'Default key')
    .option('--mode <mode>', 'live or test', 'live')
    .option('--scopes <list>', `comma-separated scopes (${SCOPES.join(', ')})`, SCOPES.join(','))
    .action(
      action(async (ctx, options: { org: number; name: string; mode: string; scopes: string }) => {
        if (options.mode !== 'live' && options.mode !== 'test') throw new Error('--mode must be live or test');
        const issued = await new KeyAdmin(new KeyRepository(ctx.pool('gateway'))).issueKey({
          organisationId: options.org,
          name: options.name,
          mode: options.mode,
          scopes: options.scopes.split(',').map((scope) => scope.trim()),
        });
        console.log(JSON.stringify(issued));
      }),
    );
}
