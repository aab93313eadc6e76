/**
 * Load shedding at the edge (D441): the first thing a request meets after
 * its id, before authentication, so a request turned away costs only its
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
import type { Request, RequestHandler, Response } from 'express';
import { ApiError, Counter, Gauge, Histogram, type Registry } from '@partner-api/shared';
import { REQUEST_CLASSES, type Admission, type RequestClass } from '../../domain/admission';
import { hashSecret, KEY_SHAPE, rateLimitFor } from '../../domain/api-keys';
import type { KeyResolver } from '../../domain/key-resolver';
import { sendError } from '../envelope';
import type { Operation } from '../operation';
import { EVENT_STREAM_PATH } from '../routes/event-stream';
import { templateMatcher } from './request-metrics';

export interface AdmissionControlOptions {
  /** Which class a request is, from its method and path; undefined for requests that take no slot. */
  classify(method: string, path: string): RequestClass | undefined;
  /** Seconds a shed request is told to wait. */
  retryAfterSeconds: number;
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
function cachedKeyLimit(req: Request, keys: KeyResolver): number | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match || !KEY_SHAPE.test(match[1]!)) return undefined;
  const key = keys.cached(hashSecret(match[1]!).toString('hex'))?.key;
  return key ? rateLimitFor(key) : undefined;
}

function shed(req: Request, res: Response, keys: KeyResolver, retryAfterSeconds: number): void {
  const keyLimit = cachedKeyLimit(req, keys);
  if (keyLimit !== undefined) {
    res.setHeader('RateLimit-Limit', String(keyLimit));
    res.setHeader('RateLimit-Remaining', '0');
    res.setHeader('RateLimit-Reset', String(retryAfterSeconds));
  }
  res.setHeader('Retry-After', String(retryAfterSeconds));
  sendError(res, new ApiError('rate_limited', `The API is busy. Retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`));
}

export function admissionControl(admission: Admission, keys: KeyResolver, options: AdmissionControlOptions): RequestHandler {
  const metrics = admissionMetrics(options.registry, admission);
  return (req, res, next) => {
    const requestClass = options.classify(req.method, req.path);
    if (requestClass === undefined) return next();
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
        next();
      },
      shed(waitedMs) {
        classMetrics.queue.observe(waitedMs / 1000);
        classMetrics.shed.inc();
        if (!gone) shed(req, res, keys, options.retryAfterSeconds);
      },
    });
    res.once('close', () => {
      gone = true;
      withdraw();
    });
  };
}
