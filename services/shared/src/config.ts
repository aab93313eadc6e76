/**
 * Configuration comes from the environment, validated once at start: a
 * process with a bad setting fails fast with every problem listed.
 */
import { z } from 'zod';
import { parseRedisTarget } from './redis';

export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** Connections the kernel queues for an HTTP server before it accepts them (see HTTP_LISTEN_BACKLOG). */
export const DEFAULT_LISTEN_BACKLOG = 4_096;

/** Settings every service process shares. */
export const commonEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BIND_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Connections the kernel may queue for an HTTP server before it accepts
   * them (Node's default: 511; Linux caps it at net.core.somaxconn). A burst
   * of new connections past a full queue has its SYNs dropped and resent 1,
   * 3 and 7 s later: an on-sale's arrivals would wait seconds before the
   * admission control could answer them (D447).
   */
  HTTP_LISTEN_BACKLOG: z.coerce.number().int().min(1).max(65_535).default(DEFAULT_LISTEN_BACKLOG),
  OPS_PORT: z.coerce.number().int().min(0).max(65535),
  /** How long a stopping process waits for in-flight work before it exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** Whether the calls a process makes for many requests at once travel in batches (D216); off sends each alone. */
  GRPC_CALL_BATCHING: booleanFromEnv.default(true),
});

export const databaseEnv = z.object({
  DATABASE_URL: z.string().url().default('postgres://partner:partner@127.0.0.1:55432/partner_api'),
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
});

export const redisEnv = z.object({
  /** One Redis (`redis://host:port/db`) or a cluster (`redis+cluster://host:port,host:port`); see redis.ts. */
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:56379')
    .refine((url) => isRedisTarget(url), 'must be redis://, rediss://, redis+cluster://host:port,… or rediss+cluster://…'),
  /** `host:port,host:port`: seed nodes of a cluster (REDIS_URL then gives only password and TLS). */
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^\s*[^\s,:]+:\d{1,5}(\s*,\s*[^\s,:]+:\d{1,5})*\s*$/, 'must be host:port,host:port')
    .optional(),
});

function isRedisTarget(url: string): boolean {
  try {
    parseRedisTarget(url);
    return true;
  } catch {
    return false;
  }
}

export const kafkaEnv = z.object({
  KAFKA_BROKERS: z
    .string()
    .default('127.0.0.1:59092')
    .transform((value) => value.split(',').map((broker) => broker.trim()).filter(Boolean)),
  KAFKA_TOPIC: z.string().default('partner.events.v1'),
});

/**
 * Where each gRPC service listens by default on one machine. Below Linux's
 * ephemeral range (32768–60999): a port in it can be the local end of any
 * outgoing connection at the moment a service binds it. (Deployments set
 * their own; in Kubernetes every pod has its ports to itself.)
 */
export const LOCAL_GRPC_PORTS = { gateway: 15050, inventory: 15051, orders: 15052, tickets: 15053, webhooks: 15054 } as const;

/** The default address of a gRPC service on this machine. */
export const localGrpcAddress = (service: keyof typeof LOCAL_GRPC_PORTS): string => `127.0.0.1:${LOCAL_GRPC_PORTS[service]}`;

/** A TCP port setting with its default (0 binds any free port, for tests). */
export const portEnv = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** How long published outbox rows are kept, and how they are pruned (outbox/retention.ts). */
export const outboxRetentionEnv = z.object({
  /** Published outbox rows are deleted this long after they were written; 0 keeps them. */
  OUTBOX_RETENTION_HOURS: z.coerce.number().nonnegative().default(168),
  OUTBOX_RETENTION_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  OUTBOX_RETENTION_BATCH: z.coerce.number().int().positive().max(100_000).default(1_000),
});

/** The settings of a gRPC service with its own schema and an outbox: ports are per service. */
export const grpcServiceEnv = (ports: { grpc: number; ops: number }) =>
  commonEnv
    .extend(databaseEnv.shape)
    .extend(kafkaEnv.shape)
    .extend(outboxRetentionEnv.shape)
    .extend({
      GRPC_PORT: portEnv(ports.grpc),
      OPS_PORT: portEnv(ports.ops),
      /** Connections older than this are asked to reconnect, so clients rebalance over new pods; 0 never. */
      GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().nonnegative().default(60_000),
      /** How long calls in flight on such a connection may still run. */
      GRPC_MAX_CONNECTION_AGE_GRACE_MS: z.coerce.number().int().nonnegative().default(15_000),
      /** Calls the server's handlers run at once; more wait (D443). */
      GRPC_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(2_000),
      /** How long a call may wait for a slot before it is answered RESOURCE_EXHAUSTED (0: at once). */
      GRPC_MAX_QUEUE_MS: z.coerce.number().int().nonnegative().max(10_000).default(100),
    });

/**
 * For `.superRefine`: in production (NODE_ENV, as the image sets it) a
 * secret still at its development default is refused. The defaults let a
 * local run start with nothing set, and anyone can read them here.
 */
export function refuseDevelopmentSecrets(defaults: Record<string, string>) {
  return (env: { NODE_ENV: string }, ctx: z.RefinementCtx): void => {
    if (env.NODE_ENV !== 'production') return;
    for (const [name, developmentValue] of Object.entries(defaults)) {
      if ((env as Record<string, unknown>)[name] === developmentValue) ctx.addIssue({ code: 'custom', path: [name], message: `${name} must be set in production (its default is for local runs)` });
    }
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  return parsed.data;
}
