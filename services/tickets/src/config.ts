import { z } from 'zod';
import { grpcServiceEnv, loadConfig, LOCAL_GRPC_PORTS, localGrpcAddress, mailSettings } from '@partner-api/shared';

export const ticketsEnv = grpcServiceEnv({ grpc: LOCAL_GRPC_PORTS.tickets, ops: 9403 })
  .extend({
    /** Inventory resolves the event of an attendee list or a check-in (id or slug, in the caller's organisation), and takes and returns comp stock. */
    INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
    /** How long a resolved event id is reused before inventory is asked again (0: always ask). */
    EVENT_CACHE_MS: z.coerce.number().int().nonnegative().default(30_000),
    /** How comp guests are emailed: `log` (accepts and logs, sends nothing; the local default) or `smtp` (SMTP_URL). */
    GUEST_MAILER: z.enum(['log', 'smtp']).default('log'),
    /** SMTP_URL (for GUEST_MAILER=smtp) and MAIL_FROM, as every mailing service reads them. */
    ...mailSettings,
    /** How often queued guest emails are sent. */
    COMP_EMAIL_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
    /** A comp batch still unissued this long after it took stock gives the stock back (its process died mid-way). */
    COMP_RECOVERY_AFTER_MS: z.coerce.number().int().positive().default(60_000),
    /** A void ticket whose stock is still owed this long after its void is restocked by the recovery loop. */
    VOID_RESTOCK_AFTER_MS: z.coerce.number().int().positive().default(10_000),
  })
  .refine((env) => env.GUEST_MAILER !== 'smtp' || Boolean(env.SMTP_URL), {
    message: 'SMTP_URL is required when GUEST_MAILER is smtp',
    path: ['SMTP_URL'],
  });

export type TicketsConfig = z.infer<typeof ticketsEnv>;

export const loadTicketsConfig = (env: NodeJS.ProcessEnv = process.env): TicketsConfig => loadConfig(ticketsEnv, env);
