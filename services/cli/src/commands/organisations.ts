/** Organisations and their API keys, through the gateway's gRPC service (the gateway owns them). */
import type { Command } from 'commander';
import { operatorContext, SCOPES } from '@partner-api/shared';
import { action, positiveInt, wholeNumber, type CliContext } from '../context';

/** Refuses an organisation id that names none, rather than listing nothing. */
export async function requireOrganisation(ctx: CliContext, organisationId: number): Promise<void> {
  if (!(await ctx.keys.organisation(organisationId))) throw new Error(`There is no organisation ${organisationId}.`);
}

const organisationJson = (organisation: { id: bigint; name: string; slug: string }) => ({ id: Number(organisation.id), name: organisation.name, slug: organisation.slug });

export function registerOrganisations(program: Command): void {
  const org = program.command('org').description('organisations');
  org
    .command('create')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'unique slug (lower-case letters, digits and hyphens)')
    .action(
      action(async (ctx, options: { name: string; slug: string }) => {
        console.log(JSON.stringify(organisationJson(await ctx.gateway.createOrganisation({ name: options.name, slug: options.slug }, operatorContext()))));
      }),
    );

  org
    .command('list')
    .description('every organisation, oldest first')
    .action(
      action(async (ctx) => {
        for (const listed of (await ctx.gateway.listOrganisations({}, operatorContext())).data) console.log(JSON.stringify(organisationJson(listed)));
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
    .option('--ip-allowlist <list>', 'comma-separated addresses and CIDR ranges', '')
    .option('--rate-limit <n>', 'custom requests per minute (1 to 1,000,000)', wholeNumber)
    .action(
      action(async (ctx, options: { org: number; name: string; mode: string; scopes: string; ipAllowlist: string; rateLimit?: number }) => {
        if (options.mode !== 'live' && options.mode !== 'test') throw new Error('--mode must be live or test');
        // The gateway checks everything, the organisation included, before it writes.
        const issued = await ctx.keys.issueKey({
          organisationId: options.org,
          name: options.name,
          mode: options.mode,
          scopes: options.scopes.split(',').map((scope) => scope.trim()),
          ipAllowlist: options.ipAllowlist,
          rateLimit: options.rateLimit ?? null,
        });
        console.log(JSON.stringify(issued));
      }),
    );

  key
    .command('list')
    .description("the organisation's keys (never their secrets), with last_used_at (null until first used)")
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, options: { org: number }) => {
        await requireOrganisation(ctx, options.org);
        for (const listed of await ctx.keys.listKeys(options.org)) {
          const { last4, ...rest } = listed;
          console.log(JSON.stringify({ ...rest, display: `${listed.prefix}…${last4}` }));
        }
      }),
    );

  key
    .command('roll')
    .description('issue a new secret; the old one keeps working for the grace period')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .option('--grace <hours>', 'hours the old key keeps working, 0 to 168 (0 revokes it now)', wholeNumber, 24)
    .action(
      action(async (ctx, keyId: number, options: { org: number; grace: number }) => {
        console.log(JSON.stringify(await ctx.keys.rollKey(options.org, keyId, options.grace)));
      }),
    );

  key
    .command('revoke')
    .description('revoke now; cannot be undone')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, keyId: number, options: { org: number }) => {
        await ctx.keys.revokeKey(options.org, keyId);
        console.log(JSON.stringify({ id: keyId, revoked: true }));
      }),
    );

  key
    .command('allowlist')
    .description('set the IP allowlist (empty allows any address)')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--ips <list>', 'comma-separated addresses and CIDR ranges, or ""')
    .action(
      action(async (ctx, keyId: number, options: { org: number; ips: string }) => {
        console.log(JSON.stringify({ id: keyId, ip_allowlist: await ctx.keys.setAllowlist(options.org, keyId, options.ips) }));
      }),
    );

  key
    .command('rate-limit')
    .description('set a custom per-minute limit, or "default"')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--limit <n|default>', 'requests per minute (1 to 1,000,000)', (value) => (value === 'default' ? value : wholeNumber(value)))
    .action(
      action(async (ctx, keyId: number, options: { org: number; limit: number | 'default' }) => {
        const limit = options.limit === 'default' ? null : options.limit;
        await ctx.keys.setRateLimit(options.org, keyId, limit);
        console.log(JSON.stringify({ id: keyId, rate_limit: limit }));
      }),
    );
}
