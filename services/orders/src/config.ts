import { z } from 'zod';
import { walletPassEnv } from './web/wallet-passes';
import { DEVELOPMENT_TICKET_PAGE_SECRET, grpcServiceEnv, loadConfig, LOCAL_GRPC_PORTS, localGrpcAddress, portEnv, redisEnv, refuseDevelopmentSecrets, ticketPageEnv, trustedProxiesEnv } from '@partner-api/shared';

const DEVELOPMENT_CHANNEL_TOKEN_SECRET = 'local-development-channel-token-secret';
const DEVELOPMENT_WAITING_ROOM_SECRET = 'local-development-waiting-room-pass-secret';

export const ordersEnv = grpcServiceEnv({ grpc: LOCAL_GRPC_PORTS.orders, ops: 9402 })
  // Redis keeps the waiting-list join counts, shared by every orders process (D371).
  .extend(redisEnv.shape)
  // Signs the ticket pages' links (D420); the mailer signs the links it sends with the same secret.
  .extend(ticketPageEnv.shape)
  .extend(walletPassEnv.shape)
  .extend({
    INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
    TICKETS_GRPC_ADDR: z.string().default(localGrpcAddress('tickets')),
    /** The hosted checkout's HTTP port (the chart sets HTTP_PORT for every component that serves HTTP). */
    HTTP_PORT: portEnv(4100),
    /** Where customers pay: checkout_url is <base>/checkout/<session id>. */
    CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:4100'),
    /** Signs the channel pages' forms (org, event, channel, embedding site); the same on every orders replica (required in production). */
    CHANNEL_TOKEN_SECRET: z.string().min(32).default(DEVELOPMENT_CHANNEL_TOKEN_SECRET),
    /** How long a channel page's form may be sent after the page was shown. */
    CHANNEL_PAGE_SECONDS: z.coerce.number().int().positive().default(7_200),
    /** How long a live session holds its tickets ("about 15 minutes"). */
    HOLD_SECONDS: z.coerce.number().int().positive().default(900),
    /** A pending session (its hold asked for, never finished) older than this has its hold released and is marked failed. */
    PENDING_SESSION_SECONDS: z.coerce.number().int().positive().default(30),
    PENDING_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
    /** `simulated` (Stripe's test cards, no network) or `stripe`. */
    PAYMENT_PROVIDER: z.enum(['simulated', 'stripe']).default('simulated'),
    STRIPE_SECRET_KEY: z.string().optional(),
    /** Another Stripe API address (tests run a local stand-in). */
    STRIPE_API_BASE: z.string().url().optional(),
    /** How often unfinished payments are looked at, and when they count as stuck. */
    PAYMENT_RECOVERY_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),
    PAYMENT_COMPLETION_DELAY_MS: z.coerce.number().int().nonnegative().default(5_000),
    PAYMENT_CHARGE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
    /** The proxies (addresses, CIDR ranges) whose X-Forwarded-For names the hosted pages' caller; none by default (D381). */
    TRUST_PROXY: trustedProxiesEnv,
    /** Waiting-list joins one caller address may send per window, across every orders process (D256, D371). */
    WAITLIST_JOINS_PER_WINDOW: z.coerce.number().int().positive().default(10),
    WAITLIST_JOIN_WINDOW_SECONDS: z.coerce.number().int().positive().default(600),
    /** A refund left pending or half done (a crash, an unanswered processor) for this long is finished by the recovery loop. */
    REFUND_RECOVERY_DELAY_MS: z.coerce.number().int().nonnegative().default(10_000),
    /** Signs the waiting room's passes; the same on every orders replica (required in production). */
    WAITING_ROOM_PASS_SECRET: z.string().min(32).default(DEVELOPMENT_WAITING_ROOM_SECRET),
    /** Visitors per second a queue set to "automatic" admits (D473). */
    WAITING_ROOM_AUTOMATIC_RATE: z.coerce.number().positive().default(20),
    /** How long a visitor whose turn came may still take their pass, and how long a pass opens the sale. */
    WAITING_ROOM_TURN_SECONDS: z.coerce.number().int().positive().default(600),
    WAITING_ROOM_PASS_SECONDS: z.coerce.number().int().positive().default(600),
    /** Passes one address may take per event per window (D477). */
    WAITING_ROOM_PASSES_PER_ADDRESS: z.coerce.number().int().positive().default(20),
    WAITING_ROOM_ADDRESS_WINDOW_SECONDS: z.coerce.number().int().positive().default(3_600),
  })
  .refine((env) => env.PAYMENT_PROVIDER !== 'stripe' || Boolean(env.STRIPE_SECRET_KEY), {
    message: 'STRIPE_SECRET_KEY is required when PAYMENT_PROVIDER is stripe',
    path: ['STRIPE_SECRET_KEY'],
  })
  .superRefine(refuseDevelopmentSecrets({ CHANNEL_TOKEN_SECRET: DEVELOPMENT_CHANNEL_TOKEN_SECRET, TICKET_PAGE_SECRET: DEVELOPMENT_TICKET_PAGE_SECRET, WAITING_ROOM_PASS_SECRET: DEVELOPMENT_WAITING_ROOM_SECRET }));

export type OrdersConfig = z.infer<typeof ordersEnv>;

export const loadOrdersConfig = (env: NodeJS.ProcessEnv = process.env): OrdersConfig => loadConfig(ordersEnv, env);
