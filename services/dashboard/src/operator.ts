/**
 * The members domain as operator tools build it (partnerctl, the e2e
 * suites): on the dashboard's and the gateway's schemas, with a mailer that
 * sends nothing, since an operator hands the printed invitation link over.
 */
import { KeyAdmin, KeyRepository } from '@partner-api/gateway';
import { LogMailer, type Logger, type Pool } from '@partner-api/shared';
import { Audit } from './domain/audit';
import { Members } from './domain/members';
import { AuditRepository } from './storage/audit-repository';
import { MemberRepository } from './storage/member-repository';
import { CachedOrganisationNames } from './storage/organisation-names';
import { SessionRepository } from './storage/session-repository';

export function operatorMembers(pools: { dashboard: Pool; gateway: Pool }, dashboardUrl: string, logger: Logger): Members {
  const pool = pools.dashboard;
  const names = new CachedOrganisationNames(new KeyAdmin(new KeyRepository(pools.gateway)));
  return new Members(pool, new MemberRepository(pool), new SessionRepository(pool), new Audit(new AuditRepository(pool)), names, new LogMailer(logger), {
    baseUrl: dashboardUrl.replace(/\/$/, ''),
    domain: 'localhost',
  });
}
