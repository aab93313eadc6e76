export { startDashboard, SCHEMA, type RunningDashboard } from './server';
export { loadDashboardConfig, type DashboardConfig } from './config';
// Members and the audit log written by partnerctl straight in the dashboard's schema (the dashboard serves no gRPC yet).
export { Members } from './domain/members';
export { operatorMembers } from './operator';
export { MemberRepository } from './storage/member-repository';
export { AuditRepository } from './storage/audit-repository';
