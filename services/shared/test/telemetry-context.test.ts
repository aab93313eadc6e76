/**
 * Trace context between processes, in both telemetry shapes (sdk.ts): a
 * child node process started with the telemetry preload, as the services
 * are, makes a gRPC call and an HTTP request to servers of its own. The
 * instrumentations patch modules as Node loads them, which Jest's own
 * module system would bypass, hence the child process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REGISTER = require.resolve('@partner-api/shared/telemetry/register');
const SCRIPT = path.join(__dirname, 'fixtures', 'trace-hops.js');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const INVALID_TRACE_ID = '0'.repeat(32);

interface Seen {
  grpcInTrace: string | null;
  grpcNoTrace: string | null;
  httpInTrace: string | null;
  sdkLoaded: boolean;
}

async function hops(env: Record<string, string>): Promise<Seen> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, OTEL_SERVICE_NAME: 'telemetry-test', ...env };
  delete childEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete childEnv.OTEL_SDK_DISABLED;
  if (!env.OTEL_NODE_ENABLED_INSTRUMENTATIONS) delete childEnv.OTEL_NODE_ENABLED_INSTRUMENTATIONS;
  const { stdout } = await promisify(execFile)(process.execPath, ['--require', REGISTER, SCRIPT, TRACE_ID], { env: childEnv, timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Seen;
}

jest.setTimeout(60_000);

it('without a collector carries the caller trace through gRPC and HTTP without loading the OpenTelemetry SDK', async () => {
  const seen = await hops({});
  expect(seen.grpcInTrace).toBe(TRACE_ID);
  expect(seen.httpInTrace).toBe(TRACE_ID);
  // Nothing is recorded, so a call made outside any trace starts none (as the SDK without an exporter).
  expect(seen.grpcNoTrace).toBe(INVALID_TRACE_ID);
  expect(seen.sdkLoaded).toBe(false);
});

it('with OTEL_NODE_ENABLED_INSTRUMENTATIONS loads the SDK with those instrumentations, and context still flows', async () => {
  const seen = await hops({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,grpc' });
  expect(seen.sdkLoaded).toBe(true);
  expect(seen.grpcInTrace).toBe(TRACE_ID);
  expect(seen.httpInTrace).toBe(TRACE_ID);
  expect(seen.grpcNoTrace).toBe(INVALID_TRACE_ID);
});
