import { z } from 'zod';
import { grpcServiceEnv, loadConfig, LOCAL_GRPC_PORTS, mailSettings, redisEnv } from '@partner-api/shared';

export const inventoryEnv = grpcServiceEnv({ grpc: LOCAL_GRPC_PORTS.inventory, ops: 9401 })
  .extend(redisEnv.shape)
  .extend({
    PUBLIC_SITE_URL: z.string().url().default('https://tickets.example.com'),
    /** How often expired holds are returned to stock. */
    HOLD_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
    /** How often hold records Redis kept for holds PostgreSQL already ended are settled (a failed or interrupted give-back). */
    HOLD_SETTLE_INTERVAL_MS: z.coerce.number().int().positive().default(15_000),
    /** How often events whose status time alone changed get a new updated_at (D234). */
    CATALOG_CLOCK_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
    /** How often tickets reserved for waiting lists are offered, and ended offers settled (D253). */
    WAITLIST_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
    /** How long a waiting-list offer (its hold and checkout session) lasts before it passes on (D254). */
    WAITLIST_OFFER_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(15 * 60),
    /** How often due waiting-list offer emails are sent (D257). */
    WAITLIST_EMAIL_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
    /** The hosted checkout's address (orders' CHECKOUT_BASE_URL): offer emails link to <base>/waitlist/<organisation>/offers/<offer id>. */
    CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:4100'),
    /** How waiting-list offers are emailed: `log` (accepts and logs, sends nothing; the local default) or `smtp` (SMTP_URL). */
    MAILER: z.enum(['log', 'smtp']).default('log'),
    /** SMTP_URL (for MAILER=smtp) and MAIL_FROM, as every mailing service reads them. */
    ...mailSettings,
    /** How long start-up waits for Redis to be connected and verified before serving anyway (not ready until it is). */
    REDIS_VERIFY_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(10_000),
    /** At most this many pools report their stock in /metrics (the hot ones; see storage/hot-pools.ts); 0 reports none. */
    METRICS_HOT_POOLS: z.coerce.number().int().min(0).max(200).default(20),
  })
  .refine((env) => env.MAILER !== 'smtp' || Boolean(env.SMTP_URL), {
    message: 'SMTP_URL is required when MAILER is smtp',
    path: ['SMTP_URL'],
  });

export type InventoryConfig = z.infer<typeof inventoryEnv>;

export const loadInventoryConfig = (env: NodeJS.ProcessEnv = process.env): InventoryConfig =>
  loadConfig(inventoryEnv, env);
