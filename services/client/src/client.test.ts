/**
 * The client against an HTTP server of the test's own on loopback, which
 * answers each request from a script: retries, idempotency keys, the
 * server's waits, pagination and typed errors, with no platform running.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPartnerClient, PartnerApiConnectionError, PartnerApiError } from './index';

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  body: string;
  at: number;
}

type Reply = (res: ServerResponse, req: IncomingMessage) => void;

let server: Server;
let baseUrl: string;
let replies: Reply[];
let seen: Seen[];

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (res) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${seen.length}`, ...headers });
  res.end(JSON.stringify(body));
};
const apiError = (status: number, code: string, type: string, headers: Record<string, string> = {}, param: string | null = null) =>
  json(status, { error: { type, code, message: `${code} happened`, param, request_id: `req_err_${status}`, doc_url: `https://docs.example.com/errors#${code}` } }, headers);
const dropConnection: Reply = (res) => res.socket?.destroy();

const session = { object: 'checkout_session', id: '5f0c8a52-8d5b-4c55-9a51-7d9f1e3f0a11', status: 'open' };
const checkoutBody = { event_id: 1, items: [{ ticket_type_id: 2, quantity: 1 }] };

function client(retries = {}) {
  return createPartnerClient({ apiKey: 'svc_live_abcdefghijklmnopqrstuvwxyz012345', baseUrl, retries: { minDelayMs: 5, ...retries } });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined, authorization: req.headers.authorization, body, at: Date.now() });
      const reply = replies.shift();
      if (!reply) return apiError(500, 'internal_error', 'api_error')(res, req);
      reply(res, req);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  replies = [];
  seen = [];
});

describe('retries of a write', () => {
  it('when a checkout meets 500 hold_failed, a 503 and a dropped connection, then it is sent again with one Idempotency-Key until it succeeds', async () => {
    replies = [apiError(500, 'hold_failed', 'api_error'), apiError(503, 'internal_error', 'api_error'), dropConnection, json(201, session)];
    const created = await client({ maxRetries: 3 }).checkoutSessions.create(checkoutBody);
    expect(created.id).toBe(session.id);
    expect(seen).toHaveLength(4);
    const [first] = seen;
    expect(first!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.map((request) => request.idempotencyKey)).toEqual(Array(4).fill(first!.idempotencyKey));
    expect(seen.every((request) => JSON.parse(request.body).event_id === 1 && request.authorization === 'Bearer svc_live_abcdefghijklmnopqrstuvwxyz012345')).toBe(true);
  });

  it("when the caller names the key, then every attempt sends the caller's key; two writes without one get different keys", async () => {
    replies = [apiError(502, 'internal_error', 'api_error'), json(201, session), json(201, session), json(201, session)];
    const partner = client();
    await partner.checkoutSessions.create(checkoutBody, { idempotencyKey: 'order-1001' });
    await partner.checkoutSessions.create(checkoutBody);
    await partner.checkoutSessions.create(checkoutBody);
    expect(seen.map((request) => request.idempotencyKey).slice(0, 2)).toEqual(['order-1001', 'order-1001']);
    expect(seen[2]!.idempotencyKey).not.toBe(seen[3]!.idempotencyKey);
  });

  it('when a request is still in progress (409), then it is asked again; other 409s and 4xx answers are not retried', async () => {
    replies = [apiError(409, 'idempotency_request_in_progress', 'conflict_error'), json(201, session)];
    await expect(client().checkoutSessions.create(checkoutBody)).resolves.toMatchObject({ id: session.id });
    expect(seen).toHaveLength(2);

    for (const [status, code, type] of [
      [409, 'ticket_wrong_event', 'conflict_error'],
      [422, 'exceeds_availability', 'invalid_request_error'],
      [400, 'parameter_invalid', 'invalid_request_error'],
      [404, 'resource_missing', 'not_found_error'],
    ] as const) {
      seen = [];
      replies = [apiError(status, code, type), json(201, session)];
      await expect(client().checkoutSessions.create(checkoutBody)).rejects.toMatchObject({ status, code });
      expect(seen).toHaveLength(1);
    }
  });

  it('when every attempt fails, then the last answer is thrown after maxRetries retries', async () => {
    replies = Array(5).fill(apiError(500, 'hold_failed', 'api_error'));
    await expect(client({ maxRetries: 2 }).checkoutSessions.create(checkoutBody)).rejects.toMatchObject({ status: 500, code: 'hold_failed' });
    expect(seen).toHaveLength(3);
  });

  it('when the connection drops on every attempt, then PartnerApiConnectionError is thrown', async () => {
    replies = Array(3).fill(dropConnection);
    const failure = client({ maxRetries: 2 }).webhookEndpoints.delete(7);
    await expect(failure).rejects.toBeInstanceOf(PartnerApiConnectionError);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((request) => request.idempotencyKey)).size).toBe(1);
  });

  it('when reads are sent, then they carry no Idempotency-Key', async () => {
    replies = [json(200, { object: 'event', id: 1 })];
    await client().events.retrieve('midnight-oil-reunion');
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/events/midnight-oil-reunion', idempotencyKey: undefined });
  });
});

describe("the server's wait", () => {
  it('when a 429 says Retry-After: 1, then the retry comes no sooner than a second later, within its jitter', async () => {
    replies = [apiError(429, 'rate_limited', 'rate_limit_error', { 'retry-after': '1', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' }), json(200, { object: 'event', id: 1 })];
    await client({ minDelayMs: 1, retryAfterJitter: 0.2 }).events.retrieve(1);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(990);
    expect(seen[1]!.at - seen[0]!.at).toBeLessThan(1200 + 500);
  });

  it('when a checkout is refused with 429 on every attempt, then after maxRetries retries the 429 is thrown with the wait the server asked for', async () => {
    replies = Array(4).fill(apiError(429, 'rate_limited', 'rate_limit_error', { 'retry-after': '0.05' }));
    const error = await client({ maxRetries: 2 }).checkoutSessions.create(checkoutBody).catch((caught: unknown) => caught);
    expect(PartnerApiError.is(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 50 });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((request) => request.idempotencyKey)).size).toBe(1);
  });

  it('when a 429 has no Retry-After but the window is spent, then RateLimit-Reset is waited for', async () => {
    replies = [apiError(429, 'rate_limited', 'rate_limit_error', { 'ratelimit-remaining': '0', 'ratelimit-reset': '1' }), json(200, { object: 'event', id: 1 })];
    await client({ minDelayMs: 1 }).events.retrieve(1);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('when Retry-After is longer than maxDelayMs, then the 429 is thrown at once with its headers', async () => {
    replies = [apiError(429, 'rate_limited', 'rate_limit_error', { 'retry-after': '30' }), json(200, {})];
    const error = await client({ maxDelayMs: 1000 }).events.retrieve(1).catch((caught: unknown) => caught);
    expect(PartnerApiError.is(error, 'rate_limited')).toBe(true);
    expect((error as PartnerApiError).headers.get('retry-after')).toBe('30');
    expect((error as PartnerApiError).retryAfterMs).toBe(30_000);
    expect(seen).toHaveLength(1);
  });
});

describe('pagination', () => {
  it('when a list has three pages, then iteration yields every item in order, passing each next_cursor back as cursor with the filters', async () => {
    replies = [
      json(200, { object: 'list', data: [{ id: 1 }, { id: 2 }], has_more: true, next_cursor: 'c1' }),
      json(200, { object: 'list', data: [{ id: 3 }], has_more: true, next_cursor: 'c/2+' }),
      json(200, { object: 'list', data: [{ id: 4 }], has_more: false, next_cursor: null }),
    ];
    const ids: number[] = [];
    for await (const event of client().events.list({ status: 'all', limit: 2 })) ids.push(event.id);
    expect(ids).toEqual([1, 2, 3, 4]);
    expect(seen.map((request) => new URL(request.url, baseUrl).searchParams.get('cursor'))).toEqual([null, 'c1', 'c/2+']);
    expect(seen.every((request) => new URL(request.url, baseUrl).searchParams.get('status') === 'all')).toBe(true);
  });

  it('when the caller stops early, then no further page is fetched', async () => {
    replies = [json(200, { object: 'list', data: [{ id: 9 }, { id: 10 }], has_more: true, next_cursor: 'c1' }), json(200, { object: 'list', data: [], has_more: false, next_cursor: null })];
    for await (const order of client().orders.list()) {
      expect(order.id).toBe(9);
      break;
    }
    expect(seen).toHaveLength(1);
  });

  it('when a page fails, then iteration throws the API error', async () => {
    replies = [apiError(400, 'parameter_invalid', 'invalid_request_error', {}, 'cursor')];
    const iterate = async () => {
      for await (const ticket of client().events.attendees(1)) void ticket;
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
  });
});

describe('errors', () => {
  it('when the API refuses, then PartnerApiError carries status, code, type, param, request id and doc url, and narrows by code', async () => {
    replies = [apiError(422, 'exceeds_max_per_order', 'invalid_request_error', {}, 'items[0].quantity')];
    const error = await client().checkoutSessions.create(checkoutBody).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 422, code: 'exceeds_max_per_order', type: 'invalid_request_error', param: 'items[0].quantity', requestId: 'req_err_422', message: 'exceeds_max_per_order happened' });
    expect(PartnerApiError.is(error, 'exceeds_availability', 'exceeds_max_per_order')).toBe(true);
    expect(PartnerApiError.is(error, 'resource_missing')).toBe(false);
    expect(PartnerApiError.is(new Error('x'))).toBe(false);
  });

  it('when a non-2xx answer is not the API envelope, then it becomes api_error with the status and the Request-Id header', async () => {
    replies = [(res) => res.writeHead(404, { 'content-type': 'text/html', 'request-id': 'req_proxy' }).end('<h1>Not found</h1>')];
    await expect(client().tickets.retrieve(5)).rejects.toMatchObject({ status: 404, code: 'internal_error', type: 'api_error', requestId: 'req_proxy' });
  });

  it('when the options are wrong, then createPartnerClient says which', () => {
    expect(() => createPartnerClient({ apiKey: 'sk_nope', baseUrl })).toThrow(/apiKey/);
    expect(() => createPartnerClient({ apiKey: 'svc_test_abc', baseUrl: 'not a url' })).toThrow(/baseUrl/);
    expect(() => createPartnerClient({ apiKey: 'svc_test_abc', baseUrl, retries: { maxRetries: -1 } })).toThrow(/maxRetries/);
    expect(() => createPartnerClient({ apiKey: 'svc_test_abc', baseUrl, retries: { retryAfterJitter: -0.5 } })).toThrow(/retryAfterJitter/);
  });
});
