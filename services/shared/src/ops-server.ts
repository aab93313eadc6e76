/**
 * The operations port every service exposes: liveness, readiness and
 * Prometheus metrics, away from the traffic port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Lifecycle } from './lifecycle';

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startOpsServer(options: {
  host: string;
  port: number;
  lifecycle: Lifecycle;
  registry: Registry;
}): Promise<OpsServer> {
  const { lifecycle, registry } = options;
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    void (async () => {
      switch (req.url) {
        case '/healthz':
          return reply(200, { status: 'ok' });
        case '/readyz': {
          const { ready, failing } = await lifecycle.readiness();
          return reply(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', failing });
        }
        case '/metrics':
          return reply(200, await registry.metrics(), registry.contentType);
        default:
          return reply(404, { status: 'not_found' });
      }
    })().catch(() => reply(500, { status: 'error' }));
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
