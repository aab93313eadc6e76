import { z } from 'zod';
import { booleanFromEnv, grpcServiceEnv, loadConfig, LOCAL_GRPC_PORTS } from '@partner-api/shared';
import { parseRetrySchedule, SPEC_RETRY_SCHEDULE } from './domain/retry-schedule';

export const webhooksEnv = grpcServiceEnv({ grpc: LOCAL_GRPC_PORTS.webhooks, ops: 9404 }).extend({
  /** Kafka consumer group of the webhooks service: every replica shares it, so each event is stored once. */
  KAFKA_GROUP_ID: z.string().min(1).default('partner-api-webhooks'),
  /** How long the group waits for a silent member (a killed process) before its partitions go to the others; the broker allows 6 s to 5 min. */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(300_000).default(30_000),
  /**
   * Delays before attempts 2, 3, … (after the previous attempt), as
   * durations: `1m,5m,30m,2h,5h,8h,8h` is the spec's 8 attempts over about
   * 24 hours. Tests shorten it; the number of attempts is one more than the entries.
   */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(SPEC_RETRY_SCHEDULE)
    .transform((value, ctx) => {
      try {
        return parseRetrySchedule(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** How often each process looks for due deliveries. */
  WEBHOOK_POLL_MS: z.coerce.number().int().positive().default(500),
  /**
   * Deliveries one process has on the wire at once. Receivers on the
   * internet answer in 50-300 ms, so 64 slots keep one process at a few
   * hundred deliveries a second even then (D111).
   */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().max(256).default(64),
  /**
   * How long a delivered attempt waits for others before their successes
   * are written together (D357). The slot is free meanwhile; only the
   * record waits, and a crash within it means a resend (at least once).
   */
  WEBHOOK_SUCCESS_LINGER_MS: z.coerce.number().int().min(0).max(10_000).default(5),
  /**
   * How long the consumer waits for the attempts 1 it sends itself from a
   * chunk before it writes those still on the wire as leased rows and lets
   * the chunk's offsets be committed (D373). It bounds how long a slow
   * receiver holds a partition. 0: the consumer sends nothing itself and
   * every attempt 1 is written `scheduled` for the senders' claims.
   */
  WEBHOOK_ROUTED_SEND_BUDGET_MS: z.coerce.number().int().min(0).max(5_000).default(250),
  /**
   * Events of a partition the consumer stores, routes and sends as one
   * chunk (D376): one statement, one wait for its sends and one offset
   * commit each. Larger chunks spread those over more deliveries; a chunk
   * is held in memory with its events (a few hundred kilobytes at 250).
   */
  WEBHOOK_EVENTS_PER_CHUNK: z.coerce.number().int().positive().max(1_000).default(250),
  /** A receiver must answer within this (the spec: 10 seconds). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Local development only: lets endpoints on loopback (127.0.0.0/8, ::1,
   * `localhost`) be registered and receive deliveries, over plain http too.
   * Every other private or internal address stays refused. Off by default,
   * and off in every deployed environment.
   */
  WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: booleanFromEnv.default(false),
  /** How often each process deletes events (and finished deliveries and replays) older than the feed's 30 days. */
  EVENT_RETENTION_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /** At most this many events (and as many deliveries and replays) deleted per tick. */
  EVENT_RETENTION_BATCH: z.coerce.number().int().positive().max(100_000).default(1_000),
});

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig(webhooksEnv, env);
