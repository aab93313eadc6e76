/**
 * The members domain as operator tools build it (partnerctl, the e2e
 * suites): on the dashboard's schema, with organisations found where the
 * tool finds them (the gateway's gRPC service), and a mailer that sends
 * nothing, since an operator hands the printed invitation link over.
 */
import { LogMailer, type GatewayKeys, type Logger, type Pool } from '@partner-api/shared';
import { Audit } from './domain/audit';
import { Members } from './domain/members';
import { AuditRepository } from './storage/audit-repository';
import { MemberRepository } from './storage/member-repository';
import { CachedOrganisationNames } from './storage/organisation-names';
import { SessionRepository } from './storage/session-repository';

export function operatorMembers(services: { dashboard: Pool; organisations: Pick<GatewayKeys, 'organisation'> }, dashboardUrl: string, logger: Logger): Members {
  const pool = services.dashboard;
  const names = new CachedOrganisationNames(services.organisations);
  return new Members(pool, new MemberRepository(pool), new SessionRepository(pool), new Audit(new AuditRepository(pool)), names, new LogMailer(logger), {
    baseUrl: dashboardUrl.replace(/\/$/, ''),
    domain: 'localhost',
  });
}
