/**
 * Starts and stops telemetry in one of two shapes:
 *   - with a collector (OTEL_EXPORTER_OTLP_ENDPOINT), the OpenTelemetry Node
 *     SDK with the auto-instrumentations, exporting spans (exporting-sdk.ts);
 *   - without one, only the propagation of trace context through HTTP and
 *     gRPC (context-only.ts): nothing is sampled, but logs and the calls a
 *     request makes carry its caller's trace. Kafka headers are ours: see
 *     messaging.ts.
 * OTEL_NODE_ENABLED_INSTRUMENTATIONS without a collector loads the SDK with
 * the instrumentations it names, recording nothing. Each shape's modules
 * are loaded only when it starts.
 */
import type * as ExportingSdk from './exporting-sdk';
import type * as ContextOnly from './context-only';

let stop: (() => Promise<void> | void) | undefined;

export function startTelemetry(serviceName = process.env.OTEL_SERVICE_NAME ?? 'partner-api'): void {
  if (stop || process.env.OTEL_SDK_DISABLED === 'true') return;
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (exporting || process.env.OTEL_NODE_ENABLED_INSTRUMENTATIONS) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in this shape
    const { startSdk } = require('./exporting-sdk') as typeof ExportingSdk;
    stop = startSdk(serviceName, exporting);
  } else {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in this shape
    const { startContextOnly } = require('./context-only') as typeof ContextOnly;
    stop = startContextOnly();
  }
}

export async function stopTelemetry(): Promise<void> {
  const stopping = stop;
  stop = undefined;
  await stopping?.();
}
