/**
 * Demo data for `make up`: the "Harbour Live" organisation with a live and a
 * test key and a realistic catalog, plus a second organisation whose data
 * must never leak into the first one's responses. Writes the keys to an env
 * file; re-running keeps keys that still work.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { hashSecret, KeyAdmin, KeyRepository, Organisations, SCOPES } from '@partner-api/gateway';
import { MemberRepository } from '@partner-api/dashboard';
import { seedDemoCatalog } from '@partner-api/inventory';
import type { CliContext } from '../context';
import { action } from '../context';
import { membersOf } from './members';

const DEMO_OWNER = 'owner@harbour-live.example';

/** The demo organisation's dashboard owner; a new password only when the owner is new (the old one is in the env file). */
async function demoOwnerPassword(ctx: CliContext, organisation: { id: number; name: string; slug: string }, previous: string | undefined): Promise<string> {
  if (await new MemberRepository(ctx.pool('dashboard')).byEmail(DEMO_OWNER)) return previous ?? '(unchanged; reset it with a sign-in link)';
  const password = randomBytes(12).toString('base64url');
  const organisationId = organisation.id;
  // The seed runs before the services start (make up), so the organisation is the one it just made, not the gateway's answer.
  const members = membersOf(ctx, process.env.DASHBOARD_BASE_URL ?? 'http://localhost:4200', { organisation: async (id) => (id === organisationId ? organisation : undefined) });
  const { link } = await members.addOwner(organisationId, DEMO_OWNER, 'Harbour Live Owner');
  await members.acceptInvitation(new URL(link).pathname.split('/').pop()!, password, password);
  return password;
}

function readEnvFile(file: string): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  return Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

async function ensureOrganisation(ctx: CliContext, name: string, slug: string) {
  const organisations = new Organisations(new KeyRepository(ctx.pool('gateway')));
  return organisations.bySlug(slug).catch(() => organisations.create(name, slug));
}

async function usableKey(ctx: CliContext, secret: string | undefined, organisationId: number): Promise<boolean> {
  if (!secret) return false;
  const key = await new KeyRepository(ctx.pool('gateway')).findByHash(hashSecret(secret));
  return key?.organisationId === organisationId && !key.revokedAt && !key.expiresAt;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('demo data')
    .command('seed')
    .description('seed the demo organisations, keys and catalog (idempotent)')
    .requiredOption('--out <file>', 'env file to write BASE_URL, DEMO_LIVE_KEY, DEMO_TEST_KEY to')
    .option('--base-url <url>', 'gateway base URL', 'http://127.0.0.1:4000')
    .action(
      action(async (ctx, options: { out: string; baseUrl: string }) => {
        const admin = new KeyAdmin(new KeyRepository(ctx.pool('gateway')));
        const demo = await ensureOrganisation(ctx, 'Harbour Live', 'harbour-live');
        const other = await ensureOrganisation(ctx, 'Southern Cross Promotions', 'southern-cross');
        await seedDemoCatalog(ctx.pool('inventory'), demo.id);
        await seedDemoCatalog(ctx.pool('inventory'), other.id, 'sx-');

        const previous = readEnvFile(options.out);
        const keyFor = async (mode: 'live' | 'test', name: string) =>
          (await usableKey(ctx, previous[name], demo.id))
            ? previous[name]!
            : (await admin.issueKey({ organisationId: demo.id, name: `Demo ${mode} key`, mode, scopes: SCOPES })).secret;
        const values = {
          BASE_URL: options.baseUrl,
          DEMO_ORGANISATION_ID: String(demo.id),
          OTHER_ORGANISATION_ID: String(other.id),
          DEMO_LIVE_KEY: await keyFor('live', 'DEMO_LIVE_KEY'),
          DEMO_TEST_KEY: await keyFor('test', 'DEMO_TEST_KEY'),
          DASHBOARD_URL: process.env.DASHBOARD_BASE_URL ?? 'http://localhost:4200',
          DEMO_DASHBOARD_EMAIL: DEMO_OWNER,
          DEMO_DASHBOARD_PASSWORD: await demoOwnerPassword(ctx, demo, previous.DEMO_DASHBOARD_PASSWORD),
          // Where the local stack's mail is read (MailDev, from infra.env); absent with a mail server of one's own.
          ...(process.env.MAIL_URL ? { MAIL_URL: process.env.MAIL_URL } : {}),
        };
        fs.mkdirSync(path.dirname(options.out), { recursive: true });
        fs.writeFileSync(
          options.out,
          Object.entries(values).map(([name, value]) => `${name}=${value}`).join('\n') + '\n',
          { mode: 0o600 },
        );
        console.log(`demo data ready; keys in ${options.out}`);
      }),
    );
}
