/** Dashboard members: the first owner of an organisation, and who is in it. */
import type { Command } from 'commander';
import { MemberRepository, operatorMembers, type Members } from '@partner-api/dashboard';
import type { GatewayKeys } from '@partner-api/shared';
import { action, positiveInt, type CliContext } from '../context';
import { requireOrganisation } from './organisations';

/** The dashboard's members domain over partnerctl's pool, with organisations from `organisations` (the gateway's gRPC service unless given). */
export function membersOf(ctx: CliContext, dashboardUrl: string, organisations: Pick<GatewayKeys, 'organisation'> = ctx.keys): Members {
  return operatorMembers({ dashboard: ctx.pool('dashboard'), organisations }, dashboardUrl, ctx.logger);
}

export function registerMembers(program: Command): void {
  const member = program.command('member').description('dashboard members');
  member
    .command('add-owner')
    .description("add an owner to an organisation and print their invitation link (they choose a password there; it works once, for 72 hours)")
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .requiredOption('--email <email>', "the owner's email (signs in to this organisation only)")
    .requiredOption('--name <name>', "the owner's name")
    .option('--dashboard-url <url>', 'where the dashboard is opened', process.env.DASHBOARD_BASE_URL ?? 'http://localhost:4200')
    .action(
      action(async (ctx, options: { org: number; email: string; name: string; dashboardUrl: string }) => {
        const { member: added, link } = await membersOf(ctx, options.dashboardUrl).addOwner(options.org, options.email, options.name);
        console.log(JSON.stringify({ id: added.id, organisation_id: added.organisationId, email: added.email, role: added.role, invitation_url: link }));
      }),
    );
  member
    .command('list')
    .description("the organisation's members and their roles")
    .requiredOption('--org <id>', 'organisation id', positiveInt)
    .action(
      action(async (ctx, options: { org: number }) => {
        await requireOrganisation(ctx, options.org);
        for (const listed of await new MemberRepository(ctx.pool('dashboard')).list(options.org)) {
          console.log(JSON.stringify({ id: listed.id, email: listed.email, name: listed.name, role: listed.role, joined_at: listed.joinedAt }));
        }
      }),
    );
}
