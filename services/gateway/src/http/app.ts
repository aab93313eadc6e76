/**
 * The gateway's Express app, in the order every request meets it:
 * context headers → public routes → browser guard → authentication →
 * rate limit → routes (scope check, validation, one gRPC call) → errors.
 */
import express, { type Express } from 'express';
import type { Logger } from '@partner-api/shared';
import type { Redis } from 'ioredis';
import { KeyResolver } from '../domain/key-resolver';
import { IdempotencyStore } from '../storage/idempotency-store';
import { KeyAdmission } from '../storage/key-admission';
import type { KeyRepository } from '../storage/key-repository';
import { generateOpenApiDocument } from '../openapi/registry';
import { errorHandler, routeNotFound } from './errors';
import { authenticate } from './middleware/authenticate';
import { browserGuard } from './middleware/browser-guard';
import { idempotency } from './middleware/idempotency';
import { jsonBody } from './middleware/json-body';
import { requestContext } from './middleware/request-context';
import { requestLog } from './middleware/request-log';
import { catalogRoutes } from './routes/catalog';
import { checkoutSessionRoutes } from './routes/checkout-sessions';
import { compTicketRoutes } from './routes/comp-tickets';
import { eventTicketRoutes } from './routes/event-tickets';
import { orderRoutes } from './routes/orders';
import { CursorSealer } from './pagination';
import { rootRoutes } from './routes/root';
import { webhookEndpointRoutes } from './routes/webhook-endpoints';
import type { ServiceClients } from './service-clients';

export interface AppDependencies {
  logger: Logger;
  keys: KeyRepository;
  redis: Redis;
  clients: ServiceClients;
  publicBaseUrl: string;
  docsBaseUrl: string;
  trustProxy: string | boolean;
  cursorSecret: string;
}

export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy);
  app.set('etag', false);

  app.use(requestContext(deps.docsBaseUrl));
  app.use(requestLog(deps.logger));

  const openApiDocument = generateOpenApiDocument(deps.publicBaseUrl);
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  app.use(browserGuard);
  const admission = new KeyAdmission(deps.redis);
  app.use(authenticate(new KeyResolver(deps.keys, admission), admission));
  app.use(jsonBody);
  app.use(idempotency(new IdempotencyStore(deps.redis), deps.logger));

  app.use(rootRoutes());
  const sealer = new CursorSealer(deps.cursorSecret);
  app.use(catalogRoutes(deps.clients.inventory, sealer));
  app.use(checkoutSessionRoutes(deps.clients.orders));
  app.use(orderRoutes(deps.clients.orders, deps.clients.tickets, sealer));
  app.use(eventTicketRoutes(deps.clients.tickets, sealer));
  app.use(compTicketRoutes(deps.clients.tickets));
  app.use(webhookEndpointRoutes(deps.clients.webhooks));

  app.use(routeNotFound);
  app.use(errorHandler(deps.logger));
  return app;
}
