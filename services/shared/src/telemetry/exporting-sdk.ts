/**
 * Telemetry with a collector: the OpenTelemetry Node SDK, exporting spans
 * over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT, with the sampler from
 * OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG (the chart sets a
 * parent-based ratio). Metrics come from prom-client and logs from pino, so
 * the SDK's own metric and log exporters stay off.
 */
import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace-base';
import { propagateIncomingContext } from './incoming-context';

/** The ops port's probe and scrape paths: no spans for what a kubelet or Prometheus asks every few seconds. */
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts the SDK; returns its shutdown. `exporting` false is the SDK with
 * nothing exported, kept for OTEL_NODE_ENABLED_INSTRUMENTATIONS (an operator
 * who names the instrumentations to load, e.g. to try one out).
 */
export function startSdk(serviceName: string, exporting: boolean): () => Promise<void> {
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
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
  const stopIncomingContext = exporting ? () => undefined : propagateIncomingContext();
  return async () => {
    stopIncomingContext();
    await sdk.shutdown();
  };
}
