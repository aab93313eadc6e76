import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from '@partner-api/shared';
import { createHttpServer } from './http-server';
import { requestLog } from './middleware/request-log';
import { API_OPERATIONS } from './routes';

/** An Express app behind createHttpServer, logging into `lines`. */
async function serve(lines: Array<Record<string, unknown>>) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.requestId = 'req_test';
    next();
  });
  app.use(requestLog(createLogger('test', 'info', sink), API_OPERATIONS));
  // What the server built, before Express saw the objects (Express would set these prototypes itself).
  const built: { request?: unknown; response?: unknown } = {};
  app.get('/shape', (req, res) => {
    res.json({ requestIsApps: built.request === app.request, responseIsApps: built.response === app.response, path: req.path });
  });
  app.get('/broken', () => {
    throw new Error('boom');
  });
  app.get('/slow', (_req, res) => {
    setTimeout(() => res.end('late'), 500);
  });
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ error: 'failed' });
  });
  const server = createHttpServer(app, "https://docs.example.com/errors");
  server.prependListener('request', (req, res) => {
    built.request = Object.getPrototypeOf(req);
    built.response = Object.getPrototypeOf(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function waitForLines(lines: unknown[], count: number) {
  const deadline = Date.now() + 2_000;
  while (lines.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the gateway HTTP server', () => {
  it("builds requests and responses on the app's prototypes, so Express works unchanged", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const { url, close } = await serve(lines);
    try {
      const response = await fetch(`${url}/shape?x=1`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ requestIsApps: true, responseIsApps: true, path: '/shape' });
    } finally {
      await close();
    }
  });

  it('logs one line per request: completed, errored (level error) or aborted, without headers', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const { url, close } = await serve(lines);
    try {
      await fetch(`${url}/shape`, { headers: { authorization: 'Bearer svc_live_secret' } });
      await fetch(`${url}/broken`);
      await fetch(`${url}/slow`, { signal: AbortSignal.timeout(100) }).catch(() => undefined);
      await waitForLines(lines, 3);
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, msg: 'request completed', req: { id: 'req_test', method: 'GET', url: '/shape', ip: '127.0.0.1' }, res: { status: 200 } }),
        expect.objectContaining({ level: 50, msg: 'request errored', res: { status: 500 } }),
        expect.objectContaining({ level: 30, msg: 'request aborted', res: { status: null } }),
      ]);
      expect(JSON.stringify(lines)).not.toContain('svc_live_secret');
      expect(lines.every((line) => typeof line.responseTime === 'number')).toBe(true);
    } finally {
      await close();
    }
  });

  it('keeps no key from a query: values of parameters the API does not define are redacted (D383)', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const { url, close } = await serve(lines);
    const key = 'svc_live_0123456789abcdefghijABCDEFGHIJ01';
    try {
      await fetch(`${url}/shape?api_key=${key}&limit=5&token=t0k3n`);
      await fetch(`${url}/shape?cursor=${key}`);
      await waitForLines(lines, 2);
      expect(lines.map((line) => (line.req as { url: string }).url)).toEqual([
        '/shape?api_key=[redacted]&limit=5&token=[redacted]',
        '/shape?cursor=svc_live_[redacted]',
      ]);
      expect(JSON.stringify(lines)).not.toMatch(/0123456789abcdefghij|t0k3n/);
    } finally {
      await close();
    }
  });
});
