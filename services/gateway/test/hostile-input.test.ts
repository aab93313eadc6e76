/**
 * Bad input as a hostile client sends it, against a real gateway: every
 * answer is the client's error in the spec's envelope, never a 500, and
 * nothing reaches a service (these requests would fail there, or be stored
 * wrongly).
 */
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { SCOPES } from '../src/domain/api-keys';
import { startHarness, type Harness } from './harness';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness([...SCOPES]);
}, 60_000);

afterAll(async () => {
  await harness.stop();
});

interface Answer {
  status: number;
  contentType: string | null;
  requestId: string | null;
  body: { error?: { type: string; code: string; param: string | null; message: string; request_id: string } };
}

async function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${harness.liveKey}`, ...init.headers },
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    requestId: response.headers.get('request-id'),
    body: text ? JSON.parse(text) : {},
  };
}

const postJson = (path: string, raw: string | Buffer, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', body: raw, headers: { 'Content-Type': 'application/json', ...headers } });

/** A raw HTTP/1.1 exchange, for what fetch refuses to send. */
function rawRequest(request: string): Promise<string> {
  const url = new URL(harness.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function expectEnvelope(answer: Answer, status: number, code: string, param?: string | null) {
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
  if (param !== undefined) expect(answer.body.error?.param).toBe(param);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.body.error?.request_id).toBe(answer.requestId);
}

describe('request bodies', () => {
  it('refuses a body nested thousands deep, also with an Idempotency-Key (its fingerprint used to overflow the stack)', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const answer = await postJson('/checkout_sessions', deep, { 'Idempotency-Key': 'deep-1' });
    expectEnvelope(answer, 400, 'parameter_invalid', null);
    expect(answer.body.error?.message).toMatch(/nested more than 32 levels/);
    const deepObject = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expectEnvelope(await postJson('/comp_tickets', deepObject), 400, 'parameter_invalid', null);
  });

  it.each([
    ['/webhook_endpoints', { url: 'https://hooks.example.com/x', description: 'a\u0000b' }, 'description'],
    ['/checkout_sessions', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], metadata: { note: 'nul\u0000' } }, 'metadata.note'],
    ['/checkout_sessions', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], customer: { first_name: '\u0000' } }, 'customer.first_name'],
    ['/checkout_sessions', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], coupon_code: 'A\u0000' }, 'coupon_code'],
    ['/events/1/check_ins', { code: 'ABC\u0000' }, 'code'],
    ['/comp_tickets', { event_id: 1, ticket_type_id: 1, attendees: [{ email: 'a@example.com', name: 'Ann\u0000' }] }, 'attendees[0].name'],
  ])('refuses a NUL character in %s (%j) as 400 parameter_invalid naming the field', async (path, body, param) => {
    expectEnvelope(await postJson(path, JSON.stringify(body)), 400, 'parameter_invalid', param);
  });

  it('refuses a NUL in a key and a lone surrogate in a value', async () => {
    const key = await postJson('/checkout_sessions', '{"metadata":{"a\\u0000":"x"}}');
    expectEnvelope(key, 400, 'parameter_invalid', 'metadata');
    const surrogate = await postJson('/webhook_endpoints', '{"url":"https://hooks.example.com/x","description":"\\ud800"}');
    expectEnvelope(surrogate, 400, 'parameter_invalid', 'description');
  });

  it('refuses invalid UTF-8 instead of storing U+FFFD in its place', async () => {
    const body = Buffer.concat([Buffer.from('{"url":"https://hooks.example.com/x","description":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const answer = await postJson('/webhook_endpoints', body);
    expectEnvelope(answer, 400, 'parameter_invalid', null);
    expect(answer.body.error?.message).toMatch(/UTF-8/);
  });

  it('refuses Content-Encoding: gzip with a body that is not gzip, and still reads a real gzip body', async () => {
    const junk = await postJson('/checkout_sessions', '{"event_id":1}', { 'Content-Encoding': 'gzip' });
    expectEnvelope(junk, 400, 'parameter_invalid', null);
    const real = await postJson('/checkout_sessions', gzipSync('{"items":[]}'), { 'Content-Encoding': 'gzip' });
    expectEnvelope(real, 400, 'parameter_missing', 'event_id');
  });

  it('answers a missing webhook url with parameter_invalid, as that endpoint\'s own error list says', async () => {
    expectEnvelope(await postJson('/webhook_endpoints', '{"event_types":["*"]}'), 400, 'parameter_invalid', 'url');
    expectEnvelope(await postJson('/webhook_endpoints', '{}'), 400, 'parameter_invalid', 'url');
  });
});

describe('path ids', () => {
  it.each([
    ['/events/%00', 'No such event.'],
    ['/events/%FF', 'No such event.'],
    ['/events/%zz/attendees', 'No such event.'],
    [`/events/${'s'.repeat(201)}`, 'No such event.'],
    [`/events/${'s'.repeat(201)}/ticket_types`, 'No such event.'],
    [`/orders/${'a'.repeat(65)}`, 'No such order.'],
    ['/orders/%C0', 'No such order.'],
    ['/orders/not-a-uuid', 'No such order.'],
    [`/checkout_sessions/${'0'.repeat(65)}`, 'No such checkout session.'],
    ['/tickets/%C2%84', 'No such ticket.'],
    ['/tickets/0', 'No such ticket.'],
    ['/tickets/12345678901234567890', 'No such ticket.'],
    ['/venues/abc', 'No such venue.'],
    ['/webhook_endpoints/-1', 'No such webhook endpoint.'],
  ])('%s that cannot name anything is 404 resource_missing', async (path, message) => {
    const answer = await call(path);
    expectEnvelope(answer, 404, 'resource_missing', 'id');
    expect(answer.body.error?.message).toBe(message);
  });

  it('an undecodable id on a write is its 404 too', async () => {
    expectEnvelope(await postJson('/events/%FF/check_ins', '{"code":"x"}'), 404, 'resource_missing', 'id');
    expectEnvelope(await call('/webhook_endpoints/%E0%A4%A', { method: 'DELETE' }), 404, 'resource_missing', 'id');
  });
});

describe('queries', () => {
  it.each(['0x10', '1e2', '+5', ' 5 ', '5.0', '', '0', '101'])('limit=%j is 400 parameter_invalid', async (limit) => {
    expectEnvelope(await call(`/events?limit=${encodeURIComponent(limit)}`), 400, 'parameter_invalid', 'limit');
  });

  it('takes a plain integer limit', async () => {
    expect((await call('/events?limit=5')).status).toBe(200);
  });

  it('refuses a NUL in a query value', async () => {
    expectEnvelope(await call('/events?q=%00'), 400, 'parameter_invalid', 'q');
    expectEnvelope(await call('/orders?updated_since=2026%00'), 400, 'parameter_invalid', 'updated_since');
  });
});

describe("what Node's parser refuses", () => {
  it('answers over-long headers with 400 parameter_invalid, the status of the code (D385)', async () => {
    const answer = await call('/events', { headers: { 'X-Padding': 'p'.repeat(20_000) } });
    expectEnvelope(answer, 400, 'parameter_invalid', null);
    expect(answer.body.error?.type).toBe('invalid_request_error');
    expect(answer.requestId).toMatch(/^req_/);
    expect(answer.body.error?.request_id).toBe(answer.requestId);
  });

  it('answers an over-long query string with 400 parameter_invalid in the envelope', async () => {
    expectEnvelope(await call(`/events?q=${'q'.repeat(20_000)}`), 400, 'parameter_invalid', null);
  });

  it('answers a bare LF inside a header with 400 in the envelope', async () => {
    const reply = await rawRequest('GET /events HTTP/1.1\r\nHost: x\r\nX-Bad: a\nb\r\n\r\n');
    const [head, body] = reply.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(head).toMatch(/Content-Type: application\/json/i);
    expect(head).toMatch(/Service-Version: 2026-10-18/);
    const requestId = /Request-Id: (\S+)/.exec(head)?.[1];
    expect(JSON.parse(body).error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', request_id: requestId });
  });

  it('answers OPTIONS as an unknown route in the envelope, not text/plain', async () => {
    const answer = await call('/events', { method: 'OPTIONS' });
    expectEnvelope(answer, 404, 'route_not_found', null);
  });

  it('answers CONNECT as an unknown route in the envelope instead of closing the connection (D387)', async () => {
    const reply = await rawRequest(`CONNECT 127.0.0.1:${new URL(harness.baseUrl).port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const [head, body] = reply.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 404 Not Found/);
    expect(head).toMatch(/Service-Version: 2026-10-18/);
    const requestId = /Request-Id: (\S+)/.exec(head)?.[1];
    expect(JSON.parse(body).error).toMatchObject({ type: 'not_found_error', code: 'route_not_found', param: null, request_id: requestId });
  });
});

describe('two Authorization headers (D386)', () => {
  const twoKeys = (first: string, second: string) =>
    rawRequest(`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nauthorization: Bearer ${second}\r\nConnection: close\r\n\r\n`);

  it.each([
    ['a valid key first', () => [harness.liveKey, 'svc_live_0123456789abcdefghijABCDEFGHIJ01']],
    ['a valid key second', () => ['svc_live_0123456789abcdefghijABCDEFGHIJ01', harness.liveKey]],
    ['the same key twice', () => [harness.liveKey, harness.liveKey]],
  ])('are 400 parameter_invalid with param Authorization, with %s', async (_, keys) => {
    const [first, second] = keys() as [string, string];
    const reply = await twoKeys(first, second);
    const [head, body] = reply.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(JSON.parse(body).error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'Authorization' });
  });

  it('one Authorization header still works', async () => {
    const reply = await rawRequest(`GET /events?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${harness.liveKey}\r\nConnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK/);
  });
});
