/** Starts the webhooks service (endpoints, test sends, and live deliveries from the events topic); tests call this and own its life. */
import { gen, ServiceRuntime, WEBHOOK_USER_AGENT, type Logger } from '@partner-api/shared';
import { DeliveryMetrics } from './adapters/delivery-metrics';
import { ReceiverClient } from './adapters/receiver-client';
import type { WebhooksConfig } from './config';
import { Deliveries } from './domain/deliveries';
import { DeliveryLog } from './domain/delivery-log';
import { DisableNotices } from './domain/disable-notices';
import { WebhookEndpoints } from './domain/endpoints';
import { EVENT_RETENTION_MS, EventFeed } from './domain/event-feed';
import { HealthReports } from './domain/health-reports';
import { Replays } from './domain/replays';
import { ReceiverPolicy } from './domain/receiver-policy';
import { Resends } from './domain/resends';
import { TestEvents } from './domain/test-events';
import { webhooksHandlers } from './grpc/handlers';
import { DeliveryRepository } from './storage/delivery-repository';
import { DisableNoticeRepository } from './storage/disable-notice-repository';
import { EndpointRepository } from './storage/endpoint-repository';
import { EventFeedRepository } from './storage/event-feed-repository';
import { ReplayRepository } from './storage/replay-repository';

export const SCHEMA = 'webhooks';

export async function startWebhooks(config: WebhooksConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('webhooks', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  const policy = new ReceiverPolicy(config.WEBHOOK_ALLOW_LOOPBACK_RECEIVERS);
  const receivers = new ReceiverClient(policy, config.WEBHOOK_TIMEOUT_MS, WEBHOOK_USER_AGENT);
  runtime.lifecycle.onShutdown('receiver client', () => receivers.close());

  const endpointRepository = new EndpointRepository(pool);
  const deliveryRepository = new DeliveryRepository(pool);
  const noticeRepository = new DisableNoticeRepository(pool);
  const endpoints = new WebhookEndpoints(pool, endpointRepository, deliveryRepository, policy);
  const deliveries = new Deliveries(
    pool,
    deliveryRepository,
    endpointRepository,
    noticeRepository,
    receivers,
    config.WEBHOOK_RETRY_SCHEDULE,
    // A claimed attempt stays this process's well past the receiver's deadline; after that a process that died no longer holds it.
    {
      concurrency: config.WEBHOOK_CONCURRENCY,
      leaseMs: 2 * config.WEBHOOK_TIMEOUT_MS + 5_000,
      successLingerMs: config.WEBHOOK_SUCCESS_LINGER_MS,
      routedSendBudgetMs: config.WEBHOOK_ROUTED_SEND_BUDGET_MS,
      observer: new DeliveryMetrics(runtime.metrics),
    },
    runtime.logger,
  );
  const eventFeed = new EventFeedRepository(pool);
  const replayRepository = new ReplayRepository();
  const feed = { feed: new EventFeed(eventFeed), replays: new Replays(pool, endpoints, replayRepository), deliveryLog: new DeliveryLog(endpoints, deliveryRepository) };
  const dashboard = {
    health: new HealthReports(endpoints, deliveryRepository),
    resends: new Resends(pool, endpoints, replayRepository, deliveryRepository),
    notices: new DisableNotices(noticeRepository),
  };
  await runtime.serveGrpc(gen.webhooks.WebhooksService, webhooksHandlers(endpoints, new TestEvents(endpoints, deliveryRepository, receivers), feed, dashboard), config.GRPC_PORT);
  // Retention: a bounded batch per tick, so pruning never holds the tables for long (D280).
  runtime.every('event retention', config.EVENT_RETENTION_INTERVAL_MS, () => eventFeed.prune(new Date(Date.now() - EVENT_RETENTION_MS), config.EVENT_RETENTION_BATCH));
  // Registered before the sender, so it runs after the sender has stopped (closers run in reverse): the last successes are written.
  runtime.lifecycle.onShutdown('webhook successes', () => deliveries.recorded());
  const sender = runtime.every('webhook deliveries', config.WEBHOOK_POLL_MS, () => deliveries.drain());
  await runtime.consume(config, { groupId: config.KAFKA_GROUP_ID, sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS, chunkSize: config.WEBHOOK_EVENTS_PER_CHUNK }, async (messages) => {
    // What this process left scheduled is sent now rather than at the next poll: by the drain running, or a new one.
    if ((await deliveries.receive(messages)) > 0 && !deliveries.wake()) sender.runSoon();
  });
  await runtime.ready();
  return runtime;
}
