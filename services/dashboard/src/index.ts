export { startDashboard, SCHEMA, type RunningDashboard } from './server';
export { loadDashboardConfig, dashboardEnv, type DashboardConfig } from './config';
export { Members } from './domain/members';
export { MemberRepository } from './storage/member-repository';
export { SessionRepository } from './storage/session-repository';
export { AuditRepository } from './storage/audit-repository';
export { Audit } from './domain/audit';
export { CachedOrganisationNames } from './storage/organisation-names';
export { ROLES, type Role } from './domain/roles';
