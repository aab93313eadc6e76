import type { Command } from 'commander';
import { KeyAdmin, KeyAdmission, KeyRepository, SCOPES } from '@partner-api/gateway';
import { action, positiveInt, type CliContext } from '../context';

const keyAdmin = (ctx: CliContext) => {
  const pool = ctx.pool('gateway');
  return new KeyAdmin(new KeyRepository(pool), { pool, notifier: new KeyAdmission(ctx.redis) });
};

/** Refuses an organisation id that names none, rather than listing nothing or failing on a foreign key. */
export async function requireOrganisation(ctx: CliContext, organisationId: number): Promise<void> {
  if (!(await new KeyAdmin(new KeyRepository(ctx.pool('gateway'))).organisation(organisationId))) throw new Error(`There is no organisation ${organisationId}.`);
}

const UNIQUE_VIOLATION = '23505';

export function registerOrganisations(program: Command): void {
  const org = program.command('org').description('organisations');
  org
    .command('create')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'unique slug')
    .action(
      action(async (ctx, options: { name: string; slug: string }) => {
        const created = await new KeyAdmin(new KeyRepository(ctx.pool('gateway')))
          .createOrganisation(options.name, options.slug)
          .catch((error: unknown) => {
            if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new Error(`There is already an organisation with the slug "${options.slug}".`);
            throw error;
          });
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
    .option('--ip-allowlist <list>', 'comma-separated addresses and CIDR ranges', '')
    .option('--rate-limit <n>', 'custom requests per minute', positiveInt)
    .action(
      action(async (ctx, options: { org: number; name: string; mode: string; scopes: string; ipAllowlist: string; rateLimit?: number }) => {
        if (options.mode !== 'live' && options.mode !== 'test') throw new Error('--mode must be live or test');
        await requireOrganisation(ctx, options.org);
        const issued = await keyAdmin(ctx).issueKey({
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
        for (const listed of await keyAdmin(ctx).listKeys(options.org)) {
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
    .option('--grace <hours>', 'hours the old key keeps working, 0 to 168 (0 revokes it now)', (value) => Number(value), 24)
    .action(
      action(async (ctx, keyId: number, options: { org: number; grace: number }) => {
        console.log(JSON.stringify(await keyAdmin(ctx).rollKey(options.org, keyId, options.grace)));
      }),
    );

  key
    .command('revoke')
    .description('revoke now; cannot be undone')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, keyId: number, options: { org: number }) => {
        await keyAdmin(ctx).revokeKey(options.org, keyId);
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
        console.log(JSON.stringify({ id: keyId, ip_allowlist: await keyAdmin(ctx).setAllowlist(options.org, keyId, options.ips) }));
      }),
    );

  key
    .command('rate-limit')
    .description('set a custom per-minute limit, or "default"')
    .argument('<key-id>', 'key id', positiveInt)
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--limit <n|default>', 'requests per minute', (value) => (value === 'default' ? value : positiveInt(value)))
    .action(
      action(async (ctx, keyId: number, options: { org: number; limit: number | 'default' }) => {
        const limit = options.limit === 'default' ? null : options.limit;
        await keyAdmin(ctx).setRateLimit(options.org, keyId, limit);
        console.log(JSON.stringify({ id: keyId, rate_limit: limit }));
      }),
    );
}
