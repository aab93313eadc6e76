import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace-base';
import { propagateIncomingContext } from './incoming-context';

let sdk: NodeSDK | undefined;
let stopIncomingContext: (() => void) | undefined;

/**
 * The instrumentations that move trace context between our own processes
 * (HTTP, gRPC). Kafka headers are ours: see messaging.ts. undici carries
 * only the webhook POSTs to partners' receivers, whose `traceparent` names
 * a span only when traces are exported: it is loaded then and only then.
 */
export const CONTEXT_CARRIERS = ['http', 'grpc'];

/** The ops port's probe and scrape paths: no spans for what a kubelet or Prometheus asks every few seconds. */
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Tracing is exported only to a configured collector. Without one, spans
 * are not sampled (nothing is recorded or sent) but trace context still
 * flows through HTTP, gRPC and Kafka and into the logs. With one, the
 * sampler comes from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (the
 * chart sets a parent-based ratio). Metrics come from prom-client and logs
 * from pino, so the SDK's own exporters stay off.
 */
export function startTelemetry(serviceName = process.env.OTEL_SERVICE_NAME ?? 'partner-api'): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  // With nothing exported, instrumentations that only make spans (express, router,
  // ioredis, pg, ...) make unrecorded ones at a cost on every call; keep those that
  // carry trace context between processes. OTEL_NODE_ENABLED_INSTRUMENTATIONS overrides.
  if (!exporting) process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS ??= CONTEXT_CARRIERS.join(',');
  sdk = new NodeSDK({
    serviceName,
    ...(exporting ? { traceExporter: new OTLPTraceExporter() } : { sampler: new AlwaysOffSampler(), spanProcessors: [] }),
    instrumentations: [
      getNodeAutoInstrumentations({
        // File-system and socket spans are noise for a network service.
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
        // One span per route, not one per middleware.
        '@opentelemetry/instrumentation-express': { ignoreLayersType: ['middleware' as never] },
        // Our logger adds trace ids itself; no log records through the SDK.
        '@opentelemetry/instrumentation-pino': { enabled: false },
        // Its send spans would all take the relay loop's context; messaging.ts carries Kafka context instead.
        '@opentelemetry/instrumentation-kafkajs': { enabled: false },
        // Queries and commands only inside a trace: the pollers (outbox relay, deliveries, sweeper) make no traces of their own.
        '@opentelemetry/instrumentation-pg': { requireParentSpan: true },
        '@opentelemetry/instrumentation-ioredis': { requireParentSpan: true },
        // Server spans only when they are exported; otherwise incoming requests
        // just take their caller's context (see incoming-context.ts).
        '@opentelemetry/instrumentation-http': {
          disableIncomingRequestInstrumentation: !exporting,
          ignoreIncomingRequestHook: (request) => OPS_PATHS.has(request.url ?? ''),
        },
      }),
    ],
  });
  sdk.start();
  if (!exporting) stopIncomingContext = propagateIncomingContext();
}

export async function stopTelemetry(): Promise<void> {
  stopIncomingContext?.();
  stopIncomingContext = undefined;
  await sdk?.shutdown();
  sdk = undefined;
}
