import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { context, propagation, trace } from '@opentelemetry/api';
import { startTelemetry, stopTelemetry } from './sdk';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

/** What a handler sees of the active trace: in the handler, after an await, in a response listener, in outgoing headers. */
interface Seen {
  inHandler?: string;
  afterAwait?: string;
  onClose?: string;
  outgoing?: string;
}

const activeTraceId = () => trace.getSpanContext(context.active())?.traceId;

async function request(port: number, headers: Record<string, string>, agent?: http.Agent): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', headers, agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
  });
}

describe('incoming trace context without a collector', () => {
  const seen: Seen[] = [];
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    startTelemetry('test');
    server = http.createServer((_req, res) => {
      const entry: Seen = { inHandler: activeTraceId() };
      seen.push(entry);
      res.on('close', () => {
        entry.onClose = activeTraceId();
      });
      void sleep(1).then(() => {
        entry.afterAwait = activeTraceId();
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        entry.outgoing = carrier.traceparent;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stopTelemetry();
  });

  it("runs the request, its continuations and its listeners in the caller's context, and passes it on", async () => {
    await request(port, { traceparent: TRACEPARENT });
    await sleep(20);
    expect(seen.at(-1)).toEqual({ inHandler: TRACE_ID, afterAwait: TRACE_ID, onClose: TRACE_ID, outgoing: TRACEPARENT });
  });

  it('leaves requests without a traceparent outside any trace', async () => {
    await request(port, {});
    await sleep(20);
    expect(seen.at(-1)).toEqual({ inHandler: undefined, afterAwait: undefined, onClose: undefined, outgoing: undefined });
  });

  it('leaves a request without a traceparent outside the trace of the one before it on the same connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await request(port, { traceparent: TRACEPARENT }, agent);
      await request(port, {}, agent);
      await sleep(20);
      expect(seen.at(-2)).toMatchObject({ inHandler: TRACE_ID, onClose: TRACE_ID });
      expect(seen.at(-1)).toEqual({ inHandler: undefined, afterAwait: undefined, onClose: undefined, outgoing: undefined });
    } finally {
      agent.destroy();
    }
  });
});
