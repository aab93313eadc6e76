import { z } from 'zod';
import { booleanFromEnv, commonEnv, databaseEnv, loadConfig, localGrpcAddress, mailSettings, portEnv, redisEnv, refuseDevelopmentSecrets, trustedProxiesEnv } from '@partner-api/shared';

const DEVELOPMENT_SECRET = 'local-development-dashboard-secret-0123';

export const dashboardEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(redisEnv.shape)
  .extend(mailSettings)
  .extend({
    OPS_PORT: portEnv(9405),
    /** The dashboard's HTTP port (the chart sets HTTP_PORT for every component that serves HTTP). */
    HTTP_PORT: portEnv(4200),
    /** Where members open the dashboard: the links in invitations and sign-in emails start with it. */
    DASHBOARD_BASE_URL: z.string().url().default('http://localhost:4200'),
    /**
     * Session and CSRF cookies carry `Secure` (and the `__Host-` prefix). Browsers
     * accept secure cookies from http://localhost, so local runs keep it on;
     * turn it off only behind a plain-http address other than localhost.
     */
    SECURE_COOKIES: booleanFromEnv.default(true),
    /** Signs the CSRF tokens; the same on every dashboard replica (required in production). */
    DASHBOARD_SECRET: z.string().min(32).default(DEVELOPMENT_SECRET),
    /** A session ends after this long without a request, and in any case after SESSION_MAX_HOURS. */
    SESSION_IDLE_MINUTES: z.coerce.number().int().positive().default(30),
    SESSION_MAX_HOURS: z.coerce.number().int().positive().default(12),
    /** Wrong passwords in a row that lock a member's sign-in, and for how long (D322). */
    SIGN_IN_LOCKOUT_FAILURES: z.coerce.number().int().positive().default(5),
    SIGN_IN_LOCKOUT_MINUTES: z.coerce.number().int().positive().default(15),
    /** Sign-in attempts one caller address may make per window, whoever it signs in as. */
    SIGN_IN_ATTEMPTS_PER_WINDOW: z.coerce.number().int().positive().default(20),
    SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().positive().default(900),
    /** The proxies (addresses, CIDR ranges) whose X-Forwarded-For names the caller (audit log, sign-in limits); none by default (D381). */
    TRUST_PROXY: trustedProxiesEnv,
    /** `log` (the local default: sends nothing) or `smtp` (SMTP_URL). */
    DASHBOARD_MAILER: z.enum(['log', 'smtp']).default('log'),
    /** How often disabled-endpoint notices are looked for and emailed. */
    NOTICE_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
    /** Organisations and API keys (the gateway's GatewayService). */
    GATEWAY_GRPC_ADDR: z.string().default(localGrpcAddress('gateway')),
    INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
    ORDERS_GRPC_ADDR: z.string().default(localGrpcAddress('orders')),
    TICKETS_GRPC_ADDR: z.string().default(localGrpcAddress('tickets')),
    WEBHOOKS_GRPC_ADDR: z.string().default(localGrpcAddress('webhooks')),
  })
  .refine((env) => env.DASHBOARD_MAILER !== 'smtp' || Boolean(env.SMTP_URL), { message: 'SMTP_URL is required when DASHBOARD_MAILER is smtp', path: ['SMTP_URL'] })
  .superRefine(refuseDevelopmentSecrets({ DASHBOARD_SECRET: DEVELOPMENT_SECRET }));

export type DashboardConfig = z.infer<typeof dashboardEnv>;

export const loadDashboardConfig = (env: NodeJS.ProcessEnv = process.env): DashboardConfig => loadConfig(dashboardEnv, env);
