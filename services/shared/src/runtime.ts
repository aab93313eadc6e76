/**
 * What every service process does the same way: one logger, one lifecycle,
 * Postgres/Redis/Kafka clients registered for readiness and orderly close,
 * the outbox relay, the gRPC server and the ops port. A service's server.ts
 * reads as the list of what it needs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import type { z } from 'zod';
import { DEFAULT_LISTEN_BACKLOG, type kafkaEnv, type outboxRetentionEnv } from './config';
import { createPool } from './db';
import { gracefulHttpClose } from './http-drain';
import { addService, CallGate, GrpcHealth, GrpcServerMetrics, startGrpcServer, type ServiceHandlers } from './grpc';
import { connectIdempotentProducer, connectOrClose, createKafka, ensureTopic } from './kafka';
import { Lifecycle } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { registerConsumerLag, registerOutboxBacklog } from './metrics';
import { createMetricsRegistry, startOpsServer } from './ops-server';
import { OutboxRelay, pruneOutbox } from './outbox';
import { headerText, withProcessSpans, type TraceCarrier } from './telemetry/messaging';

/** A consumed message's body, and the context of its `process` span to continue the work in (now or later). */
export interface ConsumedMessage {
  value: string;
  traceContext: TraceCarrier;
}
import { createRedis, parseRedisTarget, queueOnlyUntilFirstConnect, type RedisClient } from './redis';

export interface RuntimeConfig {
  BIND_HOST: string;
  OPS_PORT: number;
  LOG_LEVEL: string;
  HTTP_LISTEN_BACKLOG?: number;
  GRPC_MAX_CONNECTION_AGE_MS?: number;
  GRPC_MAX_CONNECTION_AGE_GRACE_MS?: number;
  GRPC_MAX_IN_FLIGHT?: number;
  GRPC_MAX_QUEUE_MS?: number;
}

/** What the outbox relay and its retention read from a service's config (grpcServiceEnv). */
export type OutboxConfig = z.infer<typeof kafkaEnv> & z.infer<typeof outboxRetentionEnv>;

/** How long a command of an optional Redis client (see ServiceRuntime.redis) may take before it fails. */
export const OPTIONAL_REDIS_COMMAND_TIMEOUT_MS = 500;

/** How often a gRPC server's health status is brought up to date with the process's readiness. */
export const GRPC_HEALTH_REFRESH_MS = 2_000;

export class ServiceRuntime {
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly metrics: Registry;
  private grpcMetricsOf: GrpcServerMetrics | undefined;
  private callGateOf: CallGate | undefined;
  private opsPort = 0;
  /** The bound gRPC port (0 until serveGrpc); tests bind port 0 and read it here. */
  grpcPort = 0;
  private grpcHealth: GrpcHealth | undefined;

  constructor(
    readonly name: string,
    private readonly config: RuntimeConfig,
    logger?: Logger,
  ) {
    this.logger = logger ?? createLogger(name, config.LOG_LEVEL);
    this.lifecycle = new Lifecycle(this.logger);
    this.metrics = createMetricsRegistry(name);
  }

  postgres(url: string, schema: string, max = 10): Pool {
    const pool = createPool({ url, schema, max, applicationName: this.name });
    pool.on('error', (error) => this.logger.error({ err: error }, 'idle postgres client error'));
    this.lifecycle.onShutdown('postgres', () => pool.end());
    this.lifecycle.addReadinessCheck('postgres', async () => {
      await pool.query('SELECT 1');
    });
    return pool;
  }

  /**
   * The shared Redis client (one Redis or a cluster, see redis.ts), closed at
   * shutdown and part of readiness; while it is disconnected its commands
   * fail at once (queueOnlyUntilFirstConnect). A service whose work goes on without
   * Redis says so (`optional`): the client is left out of readiness, and
   * each command gives up after `OPTIONAL_REDIS_COMMAND_TIMEOUT_MS`
   * instead of waiting out the reconnection attempts.
   */
  redis(config: { REDIS_URL: string; REDIS_CLUSTER_NODES?: string | undefined }, options: { optional?: boolean } = {}): RedisClient {
    const redis = createRedis(parseRedisTarget(config.REDIS_URL, config.REDIS_CLUSTER_NODES), {
      connection: { maxRetriesPerRequest: 2, enableAutoPipelining: true, ...(options.optional ? { commandTimeout: OPTIONAL_REDIS_COMMAND_TIMEOUT_MS } : {}) },
    });
    redis.on('error', (error) => this.logger.warn({ err: error }, 'redis connection error'));
    this.lifecycle.onShutdown('redis', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    if (options.optional) return redis;
    queueOnlyUntilFirstConnect(redis);
    this.lifecycle.addReadinessCheck('redis', async () => {
      await redis.ping();
    });
    return redis;
  }

  /**
   * Starts publishing this service's outbox to Kafka, and pruning what was
   * published past its retention; stops after the gRPC server drains.
   */
  async outboxRelay(pool: Pool, config: OutboxConfig): Promise<OutboxRelay> {
    const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: this.name, logger: this.logger });
    const partitions = await ensureTopic(kafka, config.KAFKA_TOPIC);
    const relay = new OutboxRelay({ pool, connectProducer: () => connectIdempotentProducer(kafka), topic: config.KAFKA_TOPIC, logger: this.logger, partitions });
    relay.start();
    registerOutboxBacklog(this.metrics, pool);
    this.lifecycle.onShutdown('outbox relay', () => relay.stop());
    const retentionMs = config.OUTBOX_RETENTION_HOURS * 3_600_000;
    if (retentionMs > 0) this.every('outbox retention', config.OUTBOX_RETENTION_INTERVAL_MS, () => pruneOutbox(pool, new Date(Date.now() - retentionMs), config.OUTBOX_RETENTION_BATCH));
    return relay;
  }

  /**
   * Consumes a topic in a consumer group, in chunks of up to `chunkSize`
   * messages per partition, every partition at once. A chunk's offsets are
   * committed only after `handle` resolved for it, so a process that dies
   * mid-chunk reads it again (handlers must be idempotent). A handler that
   * throws is retried by kafkajs with backoff. Each message is processed
   * in a span under the trace its headers carry. A new group starts at the
   * topic's beginning unless `fromBeginning` is false (then at its end:
   * for consumers that act on what happens from now on, such as mail).
   */
  async consume(
    kafkaConfig: { KAFKA_BROKERS: string[]; KAFKA_TOPIC: string },
    group: { groupId: string; sessionTimeoutMs: number; chunkSize?: number; fromBeginning?: boolean },
    handle: (messages: ConsumedMessage[]) => Promise<unknown>,
  ): Promise<void> {
    const kafka = createKafka({ brokers: kafkaConfig.KAFKA_BROKERS, clientId: this.name, logger: this.logger });
    const partitions = await ensureTopic(kafka, kafkaConfig.KAFKA_TOPIC);
    // A member that dies keeps its partitions until its session times out; then the group hands them on.
    const consumer = kafka.consumer({ groupId: group.groupId, sessionTimeout: group.sessionTimeoutMs, heartbeatInterval: Math.floor(group.sessionTimeoutMs / 10) });
    let crashed: unknown;
    consumer.on(consumer.events.CRASH, (event) => {
      crashed = event.payload.restart ? undefined : event.payload.error;
    });
    await connectOrClose(consumer);
    await consumer.subscribe({ topic: kafkaConfig.KAFKA_TOPIC, fromBeginning: group.fromBeginning ?? true });
    const chunkSize = group.chunkSize ?? 100;
    await consumer.run({
      partitionsConsumedConcurrently: partitions,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (let start = 0; start < batch.messages.length; start += chunkSize) {
          if (!isRunning() || isStale()) return;
          const chunk = batch.messages.slice(start, start + chunkSize);
          const bodies = chunk.filter((message) => message.value);
          const traced = bodies.map((message) => ({
            carrier: headerText(message.headers),
            attributes: { 'messaging.kafka.offset': Number(message.offset), 'messaging.destination.partition.id': String(batch.partition) },
          }));
          await withProcessSpans(batch.topic, traced, (carriers) =>
            handle(bodies.map((message, i) => ({ value: message.value!.toString('utf8'), traceContext: carriers[i]! }))),
          );
          resolveOffset(chunk[chunk.length - 1]!.offset);
          await heartbeat();
        }
      },
    });
    this.lifecycle.addReadinessCheck('kafka consumer', async () => {
      if (crashed) throw crashed;
    });
    // Disconnecting waits for the chunk in hand and commits what was resolved.
    this.lifecycle.onShutdown('kafka consumer', () => consumer.disconnect());
    const lag = registerConsumerLag(this.metrics, kafka, group.groupId, kafkaConfig.KAFKA_TOPIC);
    this.lifecycle.onShutdown('kafka lag reader', () => lag.close());
  }

  /** One bound on the calls the process runs at once, however many services it serves (D443). */
  private get callGate(): CallGate {
    return (this.callGateOf ??= new CallGate({
      maxInFlight: this.config.GRPC_MAX_IN_FLIGHT ?? 2_000,
      maxQueueMs: this.config.GRPC_MAX_QUEUE_MS ?? 100,
    }));
  }

  /** One set of gRPC server metrics per process, however many services it serves. */
  private get grpcMetrics(): GrpcServerMetrics {
    return (this.grpcMetricsOf ??= new GrpcServerMetrics(this.metrics));
  }

  async serveGrpc<M extends GenServiceMethods>(
    service: GenService<M>,
    handlers: Partial<ServiceHandlers<M>>,
    port: number,
    /** Methods that finish or give back admitted work, run past the call gate (D449). */
    ungated: readonly (keyof M & string)[] = [],
  ): Promise<number> {
    const health = new GrpcHealth([service.typeName]);
    const handle = await startGrpcServer(
      (server: grpc.Server) => {
        addService(server, service, handlers, this.logger, this.grpcMetrics, this.callGate, ungated);
        health.addToServer(server);
      },
      this.config.BIND_HOST,
      port,
      {
        maxConnectionAgeMs: this.config.GRPC_MAX_CONNECTION_AGE_MS,
        maxConnectionAgeGraceMs: this.config.GRPC_MAX_CONNECTION_AGE_GRACE_MS,
      },
    );
    this.lifecycle.onShutdown('grpc server', () => handle.drain());
    // grpc.health.v1 answers what /readyz would (cached, so probes cost no queries); not serving the moment shutdown starts.
    this.every('grpc health', GRPC_HEALTH_REFRESH_MS, () => this.refreshGrpcHealth());
    this.lifecycle.onShutdown('grpc health', () => health.stop());
    this.grpcHealth = health;
    this.grpcPort = handle.port;
    return handle.port;
  }

  /**
   * Serves an HTTP handler (an Express app) on the bind host; returns the
   * bound port. Shutdown stops accepting and lets in-flight requests
   * finish (closeOnShutdown).
   */
  async serveHttp(handler: http.RequestListener, port: number): Promise<number> {
    const server = http.createServer(handler);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: this.config.BIND_HOST, backlog: this.config.HTTP_LISTEN_BACKLOG ?? DEFAULT_LISTEN_BACKLOG }, resolve);
    });
    this.closeOnShutdown(server);
    return (server.address() as AddressInfo).port;
  }

  /**
   * Closes an HTTP server at shutdown without resetting a keep-alive client
   * (http-drain.ts): stop accepting, answer what still comes with
   * `Connection: close`, then let in-flight requests finish.
   */
  closeOnShutdown(server: http.Server): void {
    this.lifecycle.onShutdown('http server', gracefulHttpClose(server));
  }

  /**
   * Runs `task` every `intervalMs` until shutdown (which waits for a run in
   * progress); a tick that finds the last run still going is skipped.
   * Failures are logged and the task runs again next tick. `runSoon`
   * starts a run now instead of at the next tick (or right after the run
   * in progress), for work that has just become due.
   */
  every(name: string, intervalMs: number, task: () => Promise<unknown>): { runSoon(): void } {
    let running: Promise<unknown> | undefined;
    let again = false;
    let stopped = false;
    const run = (): void => {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = task()
        .catch((error: unknown) => this.logger.error({ err: error, task: name }, 'periodic task failed'))
        .finally(() => {
          running = undefined;
          if (again) {
            again = false;
            run();
          }
        });
    };
    const timer = setInterval(() => {
      if (!running) run();
    }, intervalMs);
    this.lifecycle.onShutdown(name, async () => {
      stopped = true;
      clearInterval(timer);
      while (running) await running;
    });
    return { runSoon: run };
  }

  /** Opens the ops port and reports ready. Call last. */
  async ready(): Promise<{ opsPort: number; grpcPort: number }> {
    const ops = await startOpsServer({
      host: this.config.BIND_HOST,
      port: this.config.OPS_PORT,
      lifecycle: this.lifecycle,
      registry: this.metrics,
    });
    this.lifecycle.onShutdown('ops server', () => ops.close(), { last: true });
    this.opsPort = ops.port;
    this.lifecycle.markStarted();
    // Serving as soon as readiness says so, not at the next tick (not awaited: signals are wired once this returns).
    void this.refreshGrpcHealth().catch((error: unknown) => this.logger.warn({ err: error }, 'grpc health refresh failed'));
    this.logger.info({ grpcPort: this.grpcPort, opsPort: this.opsPort }, `${this.name} started`);
    return { opsPort: this.opsPort, grpcPort: this.grpcPort };
  }

  private async refreshGrpcHealth(): Promise<void> {
    if (!this.grpcHealth) return;
    const { ready } = await this.lifecycle.readiness();
    // A check that began before shutdown must not turn it back to serving.
    this.grpcHealth.set(ready && !this.lifecycle.isStopping);
  }

  stop(reason = 'stop'): Promise<void> {
    return this.lifecycle.shutdown(reason);
  }
}

/** Entry-point glue: start, wire signals, exit non-zero if start fails. */
export function runMain(start: () => Promise<ServiceRuntime>): void {
  start()
    .then((runtime) => runtime.lifecycle.handleSignals(Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000)))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    });
}
