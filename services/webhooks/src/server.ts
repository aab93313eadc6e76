/** Starts the webhooks service (endpoints, secrets, events, deliveries); tests call this and own its life. */
import { gen, ServiceRuntime, type Logger } from '@partner-api/shared';
import type { WebhooksConfig } from './config';
import { webhooksHandlers } from './grpc/handlers';

export const SCHEMA = 'webhooks';

export async function startWebhooks(config: WebhooksConfig, logger?: Logger): Promise<ServiceRuntime> {
  const runtime = new ServiceRuntime('webhooks', config, logger);
  const pool = runtime.postgres(config.DATABASE_URL, SCHEMA, config.DATABASE_POOL_SIZE);
  await runtime.outboxRelay(pool, config);
  await runtime.serveGrpc(gen.webhooks.WebhooksService, webhooksHandlers(), config.GRPC_PORT);
  await runtime.ready();
  return runtime;
}
