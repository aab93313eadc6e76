/**
 * Edges of the HTTP surface, against the running stack (issue-level probes):
 * Idempotency-Key on a request no route takes (D384), keys carried in a
 * query never reaching a log (D383), and what Node's parser and the
 * gateway answer for over-long headers, two Authorization headers and
 * CONNECT (D385–D387).
 */
import fs from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { randomBase62 } from '@partner-api/shared';
import { api, env, type ErrorBody } from './support/api';
import { newOrganisation } from './support/operator';

const LOGS = path.join(__dirname, '..', '.data', 'logs');

/** A raw HTTP/1.1 exchange with the gateway, for what fetch will not send. */
function rawRequest(request: string): Promise<{ head: string; error: ErrorBody['error'] }> {
  const url = new URL(env('BASE_URL'));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => {
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n') as [string, string | undefined];
      resolve({ head, error: (JSON.parse(body || '{}') as Partial<ErrorBody>).error! });
    });
    socket.on('error', reject);
  });
}

describe('Idempotency-Key on a request no route takes (D384)', () => {
  const write = (method: string, idempotencyKey: string) =>
    api('/checkout_sessions', { method, headers: { 'idempotency-key': idempotencyKey }, body: {} });

  it('an unknown method is 404 route_not_found although its key was used by a routed request', async () => {
    const key = `edge-${randomBase62(12)}`;
    expect((await write('POST', key)).status).toBe(400);
    const patched = await write('PATCH', key);
    expect({ status: patched.status, code: (patched.body as unknown as ErrorBody).error.code }).toEqual({ status: 404, code: 'route_not_found' });
  });

  it('the key of an unroutable request is never recorded: the routed request with it runs', async () => {
    const key = `edge-${randomBase62(12)}`;
    expect((await write('PATCH', key)).status).toBe(404);
    const posted = await write('POST', key);
    expect({ status: posted.status, code: (posted.body as unknown as ErrorBody).error.code }).toEqual({ status: 400, code: 'parameter_missing' });
  });
});

describe('keys in logs (D383)', () => {
  it('no log of any service keeps a key sent in a query or a path', async () => {
    const { key } = await newOrganisation();
    const logFiles = fs.readdirSync(LOGS).filter((name) => name.endsWith('.log'));
    const before = new Map(logFiles.map((name) => [name, fs.statSync(path.join(LOGS, name)).size]));

    const inQuery = await api(`/events?limit=1&api_key=${key}&token=${key}`, { key });
    await api(`/events/${key}`, { key });
    await api(`/?key=${key}`, { key: null });
    expect(inQuery.status).toBe(200);
    // Lines are written asynchronously: wait for this request's own line before reading them all.
    const requestId = inQuery.headers.get('request-id')!;
    const deadline = Date.now() + 5_000;
    const appended = () =>
      logFiles.map((name) => {
        const file = path.join(LOGS, name);
        const start = before.get(name) ?? 0;
        const size = fs.statSync(file).size;
        if (size <= start) return '';
        const buffer = Buffer.alloc(size - start);
        const fd = fs.openSync(file, 'r');
        fs.readSync(fd, buffer, 0, buffer.length, start);
        fs.closeSync(fd);
        return buffer.toString('utf8');
      }).join('\n');
    let text = appended();
    while (!text.includes(requestId) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = appended();
    }
    const line = text.split('\n').find((candidate) => candidate.includes(requestId) && candidate.includes('request completed'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).req.url).toBe('/events?limit=1&api_key=[redacted]&token=[redacted]');
    expect(text).not.toContain(key.slice('svc_live_'.length));
  });
});

describe('what the parser and the gateway answer at the edges', () => {
  it('over-long headers: 400 parameter_invalid, the status the spec gives the code (D385)', async () => {
    const answer = await api('/events', { headers: { 'x-padding': 'p'.repeat(20_000) } });
    expect({ status: answer.status, code: (answer.body as unknown as ErrorBody).error.code }).toEqual({ status: 400, code: 'parameter_invalid' });
  });

  it('two Authorization headers: 400 parameter_invalid naming Authorization, whichever comes first (D386)', async () => {
    for (const [first, second] of [
      [env('DEMO_LIVE_KEY'), 'svc_live_0123456789abcdefghijABCDEFGHIJ01'],
      ['svc_live_0123456789abcdefghijABCDEFGHIJ01', env('DEMO_LIVE_KEY')],
    ]) {
      const { head, error } = await rawRequest(`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\nConnection: close\r\n\r\n`);
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'Authorization' });
    }
  });

  it('CONNECT: 404 route_not_found in the envelope, not a closed connection (D387)', async () => {
    const { head, error } = await rawRequest('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 404 /);
    expect(head).toMatch(/Service-Version: 2026-10-18/);
    expect(error).toMatchObject({ type: 'not_found_error', code: 'route_not_found', request_id: /Request-Id: (\S+)/.exec(head)?.[1] });
  });
});
