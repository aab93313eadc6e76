/**
 * The gateway's Express app, in the order every request meets it:
 * context headers → public routes → browser guard → authentication →
 * rate limit → routes (scope check, validation, one gRPC call) → errors.
 */
import express, { type Express } from 'express';
import type { Logger, RedisClient, Registry } from '@partner-api/shared';
import type { Admission } from '../domain/admission';
import { KeyResolver } from '../domain/key-resolver';
import type { KeyUsage } from '../domain/key-usage';
import { IdempotencyStore } from '../storage/idempotency-store';
import { KeyAdmission } from '../storage/key-admission';
import { OperationLimits } from '../storage/operation-limits';
import type { KeyRepository } from '../storage/key-repository';
import { partnerApiDocument } from '../openapi/document';
import { AbandonedRequests } from './abandoned-requests';
import { errorHandler, routeNotFound } from './errors';
import { admissionGate, requestClassifier, type RequestGate } from './middleware/admission-control';
import { authenticate } from './middleware/authenticate';
import { browserGuard } from './middleware/browser-guard';
import { idempotency } from './middleware/idempotency';
import { jsonBody } from './middleware/json-body';
import { requestContext } from './middleware/request-context';
import { requestLog } from './middleware/request-log';
import { requestMetrics } from './middleware/request-metrics';
import { mountOperations } from './operation-routes';
import type { EventStreams } from './event-streams';
import { PageBodies } from './page-bodies';
import { CursorSealer } from './pagination';
import { mountEventStream } from './routes/event-stream';
import { API_OPERATIONS } from './routes';
import type { ServiceClients } from './service-clients';

export interface AppDependencies {
  logger: Logger;
  keys: KeyRepository;
  /** Notes each authenticated request's key; written to `last_used_at` in batches. */
  keyUsage: KeyUsage;
  redis: RedisClient;
  clients: ServiceClients;
  publicBaseUrl: string;
  docsBaseUrl: string;
  /** The proxies whose X-Forwarded-For is believed (TRUST_PROXY; empty trusts none). */
  trustedProxies: readonly string[];
  cursorSecret: string;
  /** Where the HTTP request metrics are registered (the ops port's registry). */
  metrics: Registry;
  /** Every request's deadline, carried by its gRPC calls (D442). */
  requestTimeoutMs: number;
  /** Which requests this process starts under load, and which it sheds (D441). */
  admission: { queue: Admission; retryAfterSeconds: number };
  /** The open `GET /webhook_events/stream` responses (ended at shutdown). */
  eventStreams: EventStreams;
}

/**
 * The app, and the gate in front of it (admission control, D441): the
 * HTTP server hands every request to the gate, which passes the admitted
 * ones to the app and answers the rest itself.
 */
export function createApp(deps: AppDependencies): { app: Express; gate: RequestGate } {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustedProxies);
  app.set('etag', false);

  app.use(requestContext(deps.docsBaseUrl, deps.requestTimeoutMs));
  app.use(requestLog(deps.logger, API_OPERATIONS));
  app.use(requestMetrics(deps.metrics, API_OPERATIONS));
  const keyAdmission = new KeyAdmission(deps.redis);
  const resolver = new KeyResolver(deps.keys, keyAdmission);

  const openApiDocument = partnerApiDocument(deps.publicBaseUrl);
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  app.use(browserGuard);
  app.use(authenticate(resolver, keyAdmission, deps.keyUsage));
  app.use(jsonBody);
  app.use(idempotency(new IdempotencyStore(deps.redis), deps.logger, API_OPERATIONS));

  mountEventStream(app, deps.eventStreams);
  mountOperations(app, API_OPERATIONS, {
    clients: deps.clients,
    sealer: new CursorSealer(deps.cursorSecret),
    limits: new OperationLimits(deps.redis),
    pageBodies: new PageBodies(),
    abandoned: new AbandonedRequests(deps.metrics),
  });

  app.use(routeNotFound);
  app.use(errorHandler(deps.logger, API_OPERATIONS));
  const gate = admissionGate(deps.admission.queue, resolver, {
    classify: requestClassifier(API_OPERATIONS),
    retryAfterSeconds: deps.admission.retryAfterSeconds,
    docsBaseUrl: deps.docsBaseUrl,
    registry: deps.metrics,
  });
  return { app, gate };
}
