/**
 * The gateway's write pipeline (authentication, JSON bodies, idempotency,
 * errors) with the real middleware, real Redis and a real key, around a
 * counting route standing in for a write endpoint.
 */
import express from 'express';
import { serveOnLoopback } from '../../shared/test/support';
import { createLogger, createPool, randomBase62, redisFromEnv, type RedisClient } from '@partner-api/shared';
import { ApiError } from '@partner-api/shared';
import { KeyAdmin } from '../src/domain/key-admin';
import { KeyResolver } from '../src/domain/key-resolver';
import { Organisations } from '../src/domain/organisations';
import { errorHandler, routeNotFound } from '../src/http/errors';
import { hashSecret } from '../src/domain/api-keys';
import { authenticate } from '../src/http/middleware/authenticate';
import { idempotency } from '../src/http/middleware/idempotency';
import { jsonBody } from '../src/http/middleware/json-body';
import { requestContext } from '../src/http/middleware/request-context';
import { IdempotencyStore } from '../src/storage/idempotency-store';
import { KeyAdmission } from '../src/storage/key-admission';
import { KeyRepository } from '../src/storage/key-repository';

const logger = createLogger('idempotency-test', 'silent');
let served: { baseUrl: string; close: () => Promise<void> };
let baseUrl: string;
let redis: RedisClient;
let pool: ReturnType<typeof createPool>;
let apiKey: string;
let otherApiKey: string;
let runs = 0;
let failNext = false;
let busyNext = false;

beforeAll(async () => {
  redis = redisFromEnv();
  pool = createPool({ url: process.env.DATABASE_URL!, schema: 'gateway', max: 2 });
  const keys = new KeyRepository(pool);
  const admin = new KeyAdmin(keys);
  const organisation = await new Organisations(keys).create('Idempotency Org', `idem-${randomBase62(8).toLowerCase()}`);
  apiKey = (await admin.issueKey({ organisationId: organisation.id, name: 'a', mode: 'live', scopes: ['orders:write'], rateLimit: 100_000 })).secret;
  otherApiKey = (await admin.issueKey({ organisationId: organisation.id, name: 'b', mode: 'live', scopes: ['orders:write'], rateLimit: 100_000 })).secret;

  const admission = new KeyAdmission(redis);
  const app = express();
  app.use(requestContext('https://docs.example.com/errors'));
  app.use(authenticate(new KeyResolver(keys, admission), admission));
  app.use(jsonBody);
  app.use(idempotency(new IdempotencyStore(redis, 500), logger, [{ method: 'post', expressPath: '/things' }]));
  app.post('/things', async (req, res) => {
    runs += 1;
    await new Promise((resolve) => setTimeout(resolve, 150));
    if (failNext) {
      failNext = false;
      throw new Error('downstream failed');
    }
    if (busyNext) {
      // What a write hears when the service behind it sheds the call (RESOURCE_EXHAUSTED).
      busyNext = false;
      res.setHeader('Retry-After', '1');
      throw new ApiError('rate_limited', 'The API is busy. Retry after 1 second.');
    }
    res.status(201).json({ object: 'thing', id: `thing_${randomBase62(12)}`, run: runs, echo: req.body });
  });
  app.use(routeNotFound);
  app.use(errorHandler(logger));
  served = await serveOnLoopback(app);
  baseUrl = served.baseUrl;
});

afterAll(async () => {
  await served.close();
  await pool.end();
  await redis.quit();
});

async function post(body: string, options: { key?: string; idempotencyKey?: string; contentType?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? apiKey}`, 'content-type': options.contentType ?? 'application/json' };
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${baseUrl}/things`, { method: 'POST', headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const code = (text: string) => (JSON.parse(text) as { error: { code: string; param: string | null } }).error;

describe('Idempotency-Key', () => {
  it('runs exactly one of 50 concurrent identical requests; the rest are 409 or byte-identical replays', async () => {
    const before = runs;
    const key = randomBase62(20);
    const responses = await Promise.all(Array.from({ length: 50 }, () => post('{"name":"a"}', { idempotencyKey: key })));
    expect(runs - before).toBe(1);
    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(50);
    expect(conflicts.every((r) => code(r.text).code === 'idempotency_request_in_progress')).toBe(true);
    const original = created.find((r) => r.headers.get('idempotent-replayed') === null)!;
    expect(original).toBeDefined();
    // After it finished, every retry is a replay of the same bytes.
    const replay = await post('{"name":"a"}', { idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(original.text);
    expect(replay.headers.get('content-type')).toBe(original.headers.get('content-type'));
    expect(replay.headers.get('request-id')).not.toBe(original.headers.get('request-id'));
    for (const r of created.filter((c) => c !== original)) expect(r.text).toBe(original.text);
    expect(runs - before).toBe(1);
  });

  it('treats the same JSON with other key order and spacing as the same request', async () => {
    const key = randomBase62(20);
    const first = await post('{"a":1,"b":{"c":2,"d":[1,2]}}', { idempotencyKey: key });
    const again = await post('{ "b": { "d": [1, 2], "c": 2 }, "a": 1 }', { idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('refuses the key with a different body: 422 idempotency_key_reused', async () => {
    const key = randomBase62(20);
    await post('{"name":"a"}', { idempotencyKey: key });
    const reused = await post('{"name":"b"}', { idempotencyKey: key });
    expect(reused.status).toBe(422);
    expect(code(reused.text)).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });

  it('does not remember a 5xx: the retry runs again', async () => {
    const key = randomBase62(20);
    failNext = true;
    const failed = await post('{"name":"a"}', { idempotencyKey: key });
    expect(failed.status).toBe(500);
    const before = runs;
    const retried = await post('{"name":"a"}', { idempotencyKey: key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(1);
  });

  it('does not remember a 429: a retry after the Retry-After runs again (D445)', async () => {
    const key = randomBase62(20);
    busyNext = true;
    const shed = await post('{"name":"a"}', { idempotencyKey: key });
    expect(shed.status).toBe(429);
    expect(code(shed.text).code).toBe('rate_limited');
    const before = runs;
    const retried = await post('{"name":"a"}', { idempotencyKey: key });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(runs - before).toBe(1);
  });

  it('keeps keys per API key', async () => {
    const key = randomBase62(20);
    const mine = await post('{"name":"a"}', { idempotencyKey: key });
    const theirs = await post('{"name":"a"}', { idempotencyKey: key, key: otherApiKey });
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.text).not.toBe(mine.text);
  });

  it('lets a retry run again once a crashed request’s marker has expired', async () => {
    const key = randomBase62(20);
    // What a gateway that died mid-request leaves behind: only the running marker.
    const keyId = (await new KeyRepository(pool).findByHash(hashSecret(apiKey)))!.id;
    const { createHash } = await import('node:crypto');
    await new IdempotencyStore(redis, 500).claim(keyId, createHash('sha256').update(key).digest('hex'), 'from-the-dead-request');
    const during = await post('{"name":"a"}', { idempotencyKey: key });
    expect(during.status).toBe(422);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const after = await post('{"name":"a"}', { idempotencyKey: key });
    expect(after.status).toBe(201);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['empty', ''],
  ])('rejects a key %s with 400 parameter_invalid', async (_, idempotencyKey) => {
    const response = await post('{}', { idempotencyKey });
    expect(response.status).toBe(400);
    expect(code(response.text)).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
  });

  it('accepts a key of exactly 255 characters', async () => {
    expect((await post('{}', { idempotencyKey: 'k'.repeat(255) })).status).toBe(201);
  });
});

describe('Idempotency-Key on a request no route takes (D384)', () => {
  const send = async (method: string, path: string, idempotencyKey: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: '{"a":1}',
    });
    return { status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code };
  };

  it('answers an unknown method with 404 route_not_found, even with a key used by a routed request', async () => {
    const key = `route-${randomBase62(10)}`;
    expect((await send('POST', '/things', key)).status).toBe(201);
    expect(await send('PATCH', '/things', key)).toEqual({ status: 404, code: 'route_not_found' });
    expect(await send('DELETE', '/nowhere', key)).toEqual({ status: 404, code: 'route_not_found' });
  });

  it('never records the key of an unroutable request: the routed request with it runs', async () => {
    const key = `route-${randomBase62(10)}`;
    expect(await send('PATCH', '/things', key)).toEqual({ status: 404, code: 'route_not_found' });
    expect(await send('POST', '/nowhere', key)).toEqual({ status: 404, code: 'route_not_found' });
    const routed = await send('POST', '/things', key);
    expect(routed.status).toBe(201);
  });
});

describe('request bodies', () => {
  it.each([
    ['malformed JSON', '{"name":', 'application/json', 'The request body is not valid JSON.'],
    ['a body that is not JSON', 'name=a', 'application/x-www-form-urlencoded', 'Request bodies must be JSON with Content-Type: application/json.'],
    ['a body over 100 KB', JSON.stringify({ pad: 'x'.repeat(110_000) }), 'application/json', 'The request body is larger than 100 KB.'],
  ])('answers %s with 400 parameter_invalid in the envelope', async (_, body, contentType, message) => {
    const response = await post(body, { contentType });
    expect(response.status).toBe(400);
    const envelope = JSON.parse(response.text) as { error: Record<string, unknown> };
    expect(envelope.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', message, param: null });
    expect(envelope.error.request_id).toBe(response.headers.get('request-id'));
  });
});
