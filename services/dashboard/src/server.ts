/** Starts the dashboard (members, keys, webhook deliveries, orders, the door); tests call this and own its life. */
import { AddressLimitCounts, createMailer, createServiceClient, GatewayKeys, gen, mailDomain, ServiceRuntime, type Logger, type Mailer } from '@partner-api/shared';
import type { DashboardConfig } from './config';
import { WebhookNoticeQueue } from './adapters/webhook-notice-queue';
import { Audit } from './domain/audit';
import { DisableNoticeMailer } from './domain/disable-notices';
import { Members } from './domain/members';
import { OrganisationZones } from './domain/organisation-zones';
import { Sessions } from './domain/sessions';
import { SignIn } from './domain/sign-in';
import { AuditRepository } from './storage/audit-repository';
import { MemberRepository } from './storage/member-repository';
import { CachedOrganisationNames } from './storage/organisation-names';
import { SessionRepository } from './storage/session-repository';
import { dashboardApp } from './web/app';
import { DashboardCookies } from './web/cookies';
import type { DashboardDeps } from './web/deps';

export const SCHEMA = 'dashboard';

export interface RunningDashboard {
  runtime: ServiceRuntime;
  httpPort: number;
}

/** Where the per-address sign-in counts live in Redis (one key per address). */
export const SIGN_IN_COUNTS_PREFIX = 'dash:sign-in:';

/** Tests may bring the mailer (one that keeps what it sent); otherwise DASHBOARD_MAILER picks it. */
export interface DashboardDependencies {
  mailer?: Mailer;
}

export async function startDashboard(config: DashboardConfig, logger?: Logger, dependencies: DashboardDependencies = {}): Promise<RunningDashboard> {
  const runtime = new ServiceRuntime('dashboard', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  const redis = runtime.redis(config);
  // Before any command goes out: the store defines its script on the client.
  const signInCounts = new AddressLimitCounts(redis, SIGN_IN_COUNTS_PREFIX);
  const mailer = dependencies.mailer ?? createMailer(config.DASHBOARD_MAILER, config, runtime.logger);
  runtime.lifecycle.onShutdown('mailer', () => mailer.close());

  const clients = {
    gateway: createServiceClient(gen.gateway.GatewayService, config.GATEWAY_GRPC_ADDR),
    orders: createServiceClient(gen.orders.OrdersService, config.ORDERS_GRPC_ADDR),
    tickets: createServiceClient(gen.tickets.TicketsService, config.TICKETS_GRPC_ADDR),
    webhooks: createServiceClient(gen.webhooks.WebhooksService, config.WEBHOOKS_GRPC_ADDR),
    inventory: createServiceClient(gen.inventory.InventoryService, config.INVENTORY_GRPC_ADDR),
  };
  runtime.lifecycle.onShutdown('service clients', () => {
    for (const client of Object.values(clients)) client.close();
  });

  const members = new MemberRepository(pool);
  const sessionStore = new SessionRepository(pool);
  const auditLog = new AuditRepository(pool);
  // Keys and organisations are the gateway's: changed through its gRPC service, as partnerctl changes them.
  const keys = new GatewayKeys(clients.gateway);
  const audit = new Audit(auditLog);
  const names = new CachedOrganisationNames(keys);
  const zones = new OrganisationZones(clients.inventory);
  const mail = { baseUrl: config.DASHBOARD_BASE_URL.replace(/\/$/, ''), domain: mailDomain(config.MAIL_FROM) };
  const deps: DashboardDeps = {
    cookies: new DashboardCookies(config.SECURE_COOKIES, config.SESSION_MAX_HOURS),
    sessions: new Sessions(sessionStore, members, { idleMinutes: config.SESSION_IDLE_MINUTES, maxHours: config.SESSION_MAX_HOURS }),
    signIn: new SignIn(members, audit, mailer, mail, { failures: config.SIGN_IN_LOCKOUT_FAILURES, minutes: config.SIGN_IN_LOCKOUT_MINUTES }),
    members: new Members(pool, members, sessionStore, audit, names, mailer, mail),
    audit,
    auditLog,
    keys,
    organisationName: async (id) => (await names.nameOf(id)) ?? `Organisation ${id}`,
    organisationZone: (id) => zones.zoneOf(id),
    orders: clients.orders,
    tickets: clients.tickets,
    webhooks: clients.webhooks,
    inventory: clients.inventory,
  };

  const httpPort = await runtime.serveHttp(
    dashboardApp(
      deps,
      {
        trustedProxies: config.TRUST_PROXY,
        secret: config.DASHBOARD_SECRET,
        signInLimits: { attemptsPerWindow: config.SIGN_IN_ATTEMPTS_PER_WINDOW, windowSeconds: config.SIGN_IN_WINDOW_SECONDS, counts: signInCounts },
      },
      runtime.logger,
    ),
    config.HTTP_PORT,
  );
  const notices = new DisableNoticeMailer(new WebhookNoticeQueue(clients.webhooks), members, mailer, mail, runtime.logger);
  runtime.every('disable notices', config.NOTICE_INTERVAL_MS, () => notices.run());
  await runtime.ready();
  return { runtime, httpPort };
}
