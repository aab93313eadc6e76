import { z } from 'zod';
import { DEVELOPMENT_TICKET_PAGE_SECRET, grpcServiceEnv, loadConfig, LOCAL_GRPC_PORTS, localGrpcAddress, mailSettings, refuseDevelopmentSecrets, ticketPageEnv } from '@partner-api/shared';

export const ticketsEnv = grpcServiceEnv({ grpc: LOCAL_GRPC_PORTS.tickets, ops: 9403 })
  .extend({
    /** Inventory resolves the event of an attendee list or a check-in (id or slug, in the caller's organisation), and takes and returns comp stock. */
    INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
    /** How long a resolved event id is reused before inventory is asked again (0: always ask). */
    EVENT_CACHE_MS: z.coerce.number().int().nonnegative().default(30_000),
    /** How tickets are emailed (comp guests, orders' buyers, transfers): `log` (accepts and logs, sends nothing; the default) or `smtp` (SMTP_URL; the local stack's choice, MailDev). */
    GUEST_MAILER: z.enum(['log', 'smtp']).default('log'),
    /** SMTP_URL (for GUEST_MAILER=smtp) and MAIL_FROM, as every mailing service reads them. */
    ...mailSettings,
    /** How often queued guest emails are sent. */
    COMP_EMAIL_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
    /** How often queued ticket emails (orders, transfers, resends) are sent. */
    TICKET_MAIL_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
    /** How long a claimed ticket email stays with its sender before another process may send it (a sender that died). */
    TICKET_MAIL_LEASE_MS: z.coerce.number().int().positive().default(60_000),
    /** Resends of one order's email allowed in any hour (D415). */
    MAIL_RESENDS_PER_HOUR: z.coerce.number().int().positive().default(3),
    /** The consumer group that reads `order.completed` to queue the buyers' emails. */
    ORDER_MAIL_GROUP_ID: z.string().min(1).default('tickets-order-mail'),
    ORDER_MAIL_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).default(10_000),
    /** The hosted pages' public address (as orders' CHECKOUT_BASE_URL): the emails link to the ticket pages there. */
    CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:4100'),
    /** Signs the ticket pages' links; the same value as the hosted pages' (D420). */
    ...ticketPageEnv.shape,
    /** A comp batch still unissued this long after it took stock gives the stock back (its process died mid-way). */
    COMP_RECOVERY_AFTER_MS: z.coerce.number().int().positive().default(60_000),
    /** A void ticket whose stock is still owed this long after its void is restocked by the recovery loop. */
    VOID_RESTOCK_AFTER_MS: z.coerce.number().int().positive().default(10_000),
  })
  .refine((env) => env.GUEST_MAILER !== 'smtp' || Boolean(env.SMTP_URL), {
    message: 'SMTP_URL is required when GUEST_MAILER is smtp',
    path: ['SMTP_URL'],
  })
  .superRefine(refuseDevelopmentSecrets({ TICKET_PAGE_SECRET: DEVELOPMENT_TICKET_PAGE_SECRET }));

export type TicketsConfig = z.infer<typeof ticketsEnv>;

export const loadTicketsConfig = (env: NodeJS.ProcessEnv = process.env): TicketsConfig => loadConfig(ticketsEnv, env);
