import { z } from 'zod';
import { commonEnv, databaseEnv, loadConfig, LOCAL_GRPC_PORTS, localGrpcAddress, portEnv, redisEnv, refuseDevelopmentSecrets, trustedProxiesEnv } from '@partner-api/shared';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './http/middleware/request-context';

const DEVELOPMENT_CURSOR_SECRET = 'local-development-cursor-secret';

export const gatewayEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(redisEnv.shape)
  .extend({
    OPS_PORT: portEnv(9400),
    HTTP_PORT: portEnv(4000),
    /** Organisations and API keys for the dashboard and partnerctl (GatewayService); never exposed publicly. */
    GRPC_PORT: portEnv(LOCAL_GRPC_PORTS.gateway),
    INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
    ORDERS_GRPC_ADDR: z.string().default(localGrpcAddress('orders')),
    TICKETS_GRPC_ADDR: z.string().default(localGrpcAddress('tickets')),
    WEBHOOKS_GRPC_ADDR: z.string().default(localGrpcAddress('webhooks')),
    /** How often the gateway asks each backend's grpc.health.v1 service; /readyz reads the last answers. */
    BACKEND_HEALTH_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
    PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:4000'),
    DOCS_BASE_URL: z.string().url().default('https://docs.partner-api.example.com/errors'),
    /** The proxies (addresses, CIDR ranges) whose X-Forwarded-For names the caller for allowlists and logs; none by default (D381). */
    TRUST_PROXY: trustedProxiesEnv,
    /** Seals pagination cursors; every replica needs the same one (required in production). */
    CURSOR_SECRET: z.string().min(16).default(DEVELOPMENT_CURSOR_SECRET),
    /** GET /webhook_events/stream: how often a stream asks the feed for new events. */
    EVENT_STREAM_POLL_MS: z.coerce.number().int().min(50).default(1_000),
    /** A comment line after this much quiet, so proxies keep the stream open. */
    EVENT_STREAM_HEARTBEAT_MS: z.coerce.number().int().positive().default(15_000),
    /** A stream ends after this long; its client reconnects with Last-Event-ID. */
    EVENT_STREAM_MAX_AGE_MS: z.coerce.number().int().positive().default(30 * 60_000),
    /** Open streams one organisation may hold at once, across every gateway process (D370). */
    EVENT_STREAMS_PER_ORGANISATION: z.coerce.number().int().positive().default(5),
    /** Admission control (D441): the adaptive concurrency limit of one gateway process starts here and stays within these bounds. */
    ADMISSION_INITIAL_LIMIT: z.coerce.number().int().positive().default(200),
    ADMISSION_MIN_LIMIT: z.coerce.number().int().positive().default(10),
    ADMISSION_MAX_LIMIT: z.coerce.number().int().positive().default(1_000),
    /** A window's mean latency of admitted requests above this shrinks the limit by a tenth (D440)... */
    ADMISSION_LATENCY_CEILING_MS: z.coerce.number().int().min(5).max(10_000).default(150),
    /** ...unless this many times the no-load latency is higher (D446). */
    ADMISSION_CEILING_FACTOR: z.coerce.number().min(1).max(100).default(3),
    /** The fraction of the limit only critical writes (checkout sessions, comps, check-ins) may use. */
    ADMISSION_CRITICAL_RESERVE: z.coerce.number().min(0).max(0.9).default(0.3),
    /** How long a request over its share waits for a slot before it is answered 429. */
    ADMISSION_MAX_WAIT_MS: z.coerce.number().int().min(0).max(1_000).default(10),
    /** What a shed request's Retry-After says. */
    ADMISSION_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).max(60).default(1),
    /** Every request's deadline, carried by its gRPC calls: what is left of it when each starts (D442). */
    GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_REQUEST_TIMEOUT_MS),
    /** How often the keys' last-used times noted in memory are written to PostgreSQL (and once at shutdown); D310. */
    KEY_USAGE_FLUSH_MS: z.coerce.number().int().min(100).default(30_000),
  })
  .superRefine(refuseDevelopmentSecrets({ CURSOR_SECRET: DEVELOPMENT_CURSOR_SECRET }))
  .refine((config) => config.ADMISSION_MIN_LIMIT <= config.ADMISSION_INITIAL_LIMIT && config.ADMISSION_INITIAL_LIMIT <= config.ADMISSION_MAX_LIMIT, {
    error: 'ADMISSION_MIN_LIMIT <= ADMISSION_INITIAL_LIMIT <= ADMISSION_MAX_LIMIT',
    path: ['ADMISSION_INITIAL_LIMIT'],
  });

export type GatewayConfig = z.infer<typeof gatewayEnv>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(gatewayEnv, env);
