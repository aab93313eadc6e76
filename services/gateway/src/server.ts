/** Starts the gateway: the public HTTP edge in front of the four services. */
import type { AddressInfo } from 'node:net';
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { GatewayConfig } from './config';
import { createApp } from './http/app';
import { EventStreams } from './http/event-streams';
import { createHttpServer } from './http/http-server';
import { feedReader } from './http/routes/event-stream';
import { closeServiceClients, createBackendHealth, createServiceClients, type BackendAddresses } from './http/service-clients';
import { Admission } from './domain/admission';
import { ConcurrencyLimit } from './domain/concurrency-limit';
import { KeyAdmin } from './domain/key-admin';
import { KeyUsage } from './domain/key-usage';
import { Organisations } from './domain/organisations';
import { gatewayHandlers } from './grpc/handlers';
import { KeyAdmission } from './storage/key-admission';
import { KeyRepository } from './storage/key-repository';
import { KeyUsageStore } from './storage/key-usage-store';
import { StreamSeats } from './storage/stream-seats';

export const SCHEMA = 'gateway';

export interface RunningGateway {
  runtime: ServiceRuntime;
  port: number;
}

export async function startGateway(config: GatewayConfig, logger?: Logger): Promise<RunningGateway> {
  const runtime = new ServiceRuntime('gateway', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  const redis = runtime.redis(config);
  // Last-used times of keys, noted per request and written in batches (D310). Shutdown runs closers
  // last-registered first: these come after the http server's (registered below) has drained, and
  // before the pool's (registered above) closes. The final flush waits for a periodic one in progress.
  const usageStore = new KeyUsageStore(pool);
  const keyUsage = new KeyUsage((keyIds, usedAt) => usageStore.recordUse(keyIds, usedAt), runtime.logger);
  runtime.lifecycle.onShutdown('key usage', () => keyUsage.flush());
  runtime.every('key usage flush', config.KEY_USAGE_FLUSH_MS, () => keyUsage.flush());
  const addresses: BackendAddresses = {
    inventory: config.INVENTORY_GRPC_ADDR,
    orders: config.ORDERS_GRPC_ADDR,
    tickets: config.TICKETS_GRPC_ADDR,
    webhooks: config.WEBHOOKS_GRPC_ADDR,
  };
  const clients = createServiceClients(addresses, { batching: config.GRPC_CALL_BATCHING });
  runtime.lifecycle.onShutdown('grpc clients', () => closeServiceClients(clients));
  // Ready only while every backend has a serving instance: a gateway that could only answer 500s is taken
  // out of its Service. Checked in the background on a timer; /readyz reads the last answers.
  const backends = createBackendHealth(addresses, config.BACKEND_HEALTH_INTERVAL_MS);
  runtime.lifecycle.onShutdown('backend health', () => backends.close());
  for (const name of Object.keys(addresses)) {
    runtime.lifecycle.addReadinessCheck(`backend ${name}`, async () => {
      if (backends.failing().includes(name)) throw new Error(`${name}: ${backends.status(name)?.detail}`);
    });
  }
  await backends.start();

  // Organisations and keys, for the dashboard and partnerctl: the one place they are changed, telling every gateway through Redis.
  const keyRepository = new KeyRepository(pool);
  const keyAdmin = new KeyAdmin(keyRepository, { pool, notifier: new KeyAdmission(redis) });
  await runtime.serveGrpc(gen.gateway.GatewayService, gatewayHandlers(new Organisations(keyRepository), keyAdmin), config.GRPC_PORT);

  const eventStreams = new EventStreams(feedReader(clients), new StreamSeats(redis), runtime.logger, {
    pollMs: config.EVENT_STREAM_POLL_MS,
    heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
    maxAgeMs: config.EVENT_STREAM_MAX_AGE_MS,
    perOrganisation: config.EVENT_STREAMS_PER_ORGANISATION,
  });
  const { app, gate } = createApp({
    logger: runtime.logger,
    keys: keyRepository,
    keyUsage,
    redis,
    clients,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    docsBaseUrl: config.DOCS_BASE_URL,
    cursorSecret: config.CURSOR_SECRET,
    metrics: runtime.metrics,
    eventStreams,
    requestTimeoutMs: config.GATEWAY_REQUEST_TIMEOUT_MS,
    admission: {
      queue: new Admission(
        new ConcurrencyLimit({
          initial: config.ADMISSION_INITIAL_LIMIT,
          min: config.ADMISSION_MIN_LIMIT,
          max: config.ADMISSION_MAX_LIMIT,
          latencyCeilingMs: config.ADMISSION_LATENCY_CEILING_MS,
          ceilingFactor: config.ADMISSION_CEILING_FACTOR,
        }),
        { criticalReserve: config.ADMISSION_CRITICAL_RESERVE, maxWaitMs: config.ADMISSION_MAX_WAIT_MS },
      ),
      retryAfterSeconds: config.ADMISSION_RETRY_AFTER_SECONDS,
    },
    trustedProxies: config.TRUST_PROXY,
  });
  const server = createHttpServer(app, config.DOCS_BASE_URL, gate);
  await new Promise<void>((resolve) => server.listen({ port: config.HTTP_PORT, host: config.BIND_HOST, backlog: config.HTTP_LISTEN_BACKLOG }, resolve));
  // Stop accepting, answer what still comes on kept-alive sockets with Connection: close, let in-flight requests finish.
  runtime.closeOnShutdown(server);
  // Registered after the server, so it runs before it: open streams end and the server can close.
  runtime.lifecycle.onShutdown('event streams', () => eventStreams.closeAll());
  await runtime.ready();
  return { runtime, port: (server.address() as AddressInfo).port };
}
