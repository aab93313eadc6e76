/** What the dashboard's routes work with: its own domain and the clients of the services it drives. */
import type { GatewayKeys, InventoryClient, OrdersClient, TicketsClient, WebhooksClient } from '@partner-api/shared';
import type { Audit } from '../domain/audit';
import type { Members } from '../domain/members';
import type { Sessions } from '../domain/sessions';
import type { SignIn } from '../domain/sign-in';
import type { AuditRepository } from '../storage/audit-repository';
import type { DashboardCookies } from './cookies';

export interface DashboardDeps {
  cookies: DashboardCookies;
  sessions: Sessions;
  signIn: SignIn;
  members: Members;
  audit: Audit;
  auditLog: AuditRepository;
  keys: GatewayKeys;
  /** The organisation's display name, for the header. */
  organisationName(organisationId: number): Promise<string>;
  /** The IANA zone the organisation's times are shown in (its venues'). */
  organisationZone(organisationId: number): Promise<string>;
  orders: OrdersClient;
  tickets: TicketsClient;
  webhooks: WebhooksClient;
  inventory: InventoryClient;
}
