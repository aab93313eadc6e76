import { NodeSDK } from '@opentelemetry/sdk-node';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';

let sdk: NodeSDK | undefined;

export function startTelemetry(serviceName = process.env.OTEL_SERVICE_NAME ?? 'partner-api'): void {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return;
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
  sdk = new NodeSDK({
    serviceName,
    ...(exporting ? { traceExporter: new OTLPTraceExporter() } : {}),
    instrumentations: [
      getNodeAutoInstrumentations({
        // File-system spans are noise for a network service.
        '@opentelemetry/instrumentation-fs': { enabled: false },
        '@opentelemetry/instrumentation-dns': { enabled: false },
        '@opentelemetry/instrumentation-net': { enabled: false },
      }),
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
