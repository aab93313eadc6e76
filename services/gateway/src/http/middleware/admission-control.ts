/**
 * Load shedding at the edge (D441): the first thing a request meets, in
 * front of the Express app, so a request turned away costs only its
 * parsing and this answer. Over its class's share of the adaptive limit it
 * is answered at once with the spec's `429 rate_limited`, `Retry-After` and
 * RateLimit headers. The RateLimit headers speak of the caller's key (the
 * spec's meaning) when this process has the key cached: its limit, nothing
 * remaining, reset when it may retry. An unknown key gets `Retry-After`
 * alone, as every answer without an identified key (D6).
 *
 * Long-lived streams take no slot: a stream would hold one for as long as
 * it is open and its duration says nothing about load.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_VERSION, ApiError, Counter, Gauge, Histogram, type Registry } from '@partner-api/shared';
import { REQUEST_CLASSES, type Admission, type RequestClass } from '../../domain/admission';
import { hashSecret, KEY_SHAPE, rateLimitFor } from '../../domain/api-keys';
import type { KeyResolver } from '../../domain/key-resolver';
import { errorEnvelope } from '../envelope';
import type { Operation } from '../operation';
import { EVENT_STREAM_PATH } from '../routes/event-stream';
import { newRequestId } from './request-context';
import { templateMatcher } from './request-metrics';

export interface AdmissionControlOptions {
  /** Which class a request is, from its method and path; undefined for requests that take no slot. */
  classify(method: string, path: string): RequestClass | undefined;
  /** Seconds a shed request is told to wait. */
  retryAfterSeconds: number;
  /** The base of the error envelope's `doc_url`. */
  docsBaseUrl: string;
  registry: Registry;
}

function admissionMetrics(registry: Registry, admission: Admission) {
  const requests = new Counter({
    name: 'gateway_admission_requests_total',
    help: 'Requests admitted or shed by the gateway admission control, by class (critical: writes that move money or stock)',
    labelNames: ['class', 'outcome'],
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_admission_limit',
    help: 'The adaptive concurrency limit of this gateway process',
    registers: [registry],
    collect() {
      this.set(admission.currentLimit);
    },
  });
  new Gauge({
    name: 'gateway_admission_in_flight',
    help: 'Requests this gateway process is working on, by class',
    labelNames: ['class'],
    registers: [registry],
    collect() {
      for (const requestClass of REQUEST_CLASSES) this.set({ class: requestClass }, admission.inFlightOf(requestClass));
    },
  });
  const queue = new Histogram({
    name: 'gateway_admission_queue_seconds',
    help: 'How long requests waited for admission, by class (shed ones included)',
    labelNames: ['class'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05],
    registers: [registry],
  });
  // Children made once: the per-request cost is an increment.
  const outcome = (requestClass: RequestClass, name: 'admitted' | 'shed') => requests.labels({ class: requestClass, outcome: name });
  return Object.fromEntries(
    REQUEST_CLASSES.map((requestClass) => [
      requestClass,
      { admitted: outcome(requestClass, 'admitted'), shed: outcome(requestClass, 'shed'), queue: queue.labels({ class: requestClass }) },
    ]),
  ) as Record<RequestClass, { admitted: Counter.Internal; shed: Counter.Internal; queue: Histogram.Internal<string> }>;
}

/**
 * Critical for the operations that declare it; standard for any other
 * request (unknown paths included); none for the event stream. Only writes
 * are matched against the templates: every critical operation is a POST.
 */
export function requestClassifier(operations: readonly Operation[]): AdmissionControlOptions['classify'] {
  const routeOf = templateMatcher(operations);
  const critical = new Set(operations.filter((operation) => operation.critical).map((operation) => `${operation.method.toUpperCase()} ${operation.expressPath}`));
  return (method, path) => {
    if (path === EVENT_STREAM_PATH) return undefined;
    if (method !== 'POST') return 'standard';
    return critical.has(`POST ${routeOf(method, path)}`) ? 'critical' : 'standard';
  };
}

/** The caller's key limit when this process has the key cached (no I/O), for the RateLimit headers. */
function cachedKeyLimit(req: IncomingMessage, keys: KeyResolver): number | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match || !KEY_SHAPE.test(match[1]!)) return undefined;
  const key = keys.cached(hashSecret(match[1]!).toString('hex'))?.key;
  return key ? rateLimitFor(key) : undefined;
}

/**
 * The 429 of a shed request, written straight to Node's response: no
 * Express, no access-log line (sheds are counted in
 * `gateway_admission_requests_total`; at an on-sale's rate a line each
 * would cost more than the answer, D441). The one error object is made
 * once: an Error per shed request cost a stack trace each.
 */
function shedAnswer(docsBaseUrl: string, retryAfterSeconds: number, keys: KeyResolver) {
  const busy = new ApiError('rate_limited', `The API is busy. Retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
  const retryAfter = String(retryAfterSeconds);
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = newRequestId();
    const body = JSON.stringify(errorEnvelope(busy, requestId, docsBaseUrl));
    const headers: Record<string, string> = {
      'Request-Id': requestId,
      'Service-Version': API_VERSION,
      'Retry-After': retryAfter,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    const keyLimit = cachedKeyLimit(req, keys);
    if (keyLimit !== undefined) Object.assign(headers, { 'RateLimit-Limit': String(keyLimit), 'RateLimit-Remaining': '0', 'RateLimit-Reset': retryAfter });
    res.writeHead(busy.httpStatus, headers).end(body);
  };
}

/** What runs in front of the app for every request: `pass` hands the request to it. */
export type RequestGate = (req: IncomingMessage, res: ServerResponse, pass: () => void) => void;

/**
 * The gate in front of the Express app (http-server.ts). A request of a
 * class is passed on when admitted, holding its slot until its response
 * closes; one whose client leaves while it waits is neither started nor
 * answered; one turned away gets the 429 at once.
 */
export function admissionGate(admission: Admission, keys: KeyResolver, options: AdmissionControlOptions): RequestGate {
  const metrics = admissionMetrics(options.registry, admission);
  const answerShed = shedAnswer(options.docsBaseUrl, options.retryAfterSeconds, keys);
  return (req, res, pass) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const requestClass = options.classify(req.method ?? 'GET', query < 0 ? url : url.slice(0, query));
    if (requestClass === undefined) return pass();
    const classMetrics = metrics[requestClass];
    let gone = false;
    const withdraw = admission.request(requestClass, {
      admitted(permit, waitedMs) {
        classMetrics.queue.observe(waitedMs / 1000);
        if (gone) {
          // Its client left while it waited: nothing is started for it.
          permit.release();
          return;
        }
        classMetrics.admitted.inc();
        res.once('close', () => permit.release());
        pass();
      },
      shed(waitedMs) {
        classMetrics.queue.observe(waitedMs / 1000);
        classMetrics.shed.inc();
        if (!gone) answerShed(req, res);
      },
    });
    res.once('close', () => {
      gone = true;
      withdraw();
    });
  };
}
