import { api, env, type ErrorBody } from './support/api';
import { apiFrom } from './support/from-address';
import { expireNow, keyAdmin } from './support/operator';
import { startSecondGateway, type Replica } from './support/second-gateway';

const ORG = () => Number(env('DEMO_ORGANISATION_ID'));
/**
 * A second replica, standing behind a proxy at 127.0.0.1 (TRUST_PROXY): it
 * believes X-Forwarded-For from there only. The stack's own gateway trusts
 * no proxy (D381), so a test is a caller of an address of its own there by
 * sending from it (apiFrom, a loopback address).
 */
let second: Replica;
const behindProxy = (caller: string) => ({ baseUrl: second.baseUrl, headers: { 'x-forwarded-for': caller } });

beforeAll(async () => {
  second = await startSecondGateway(4010, 9410, { TRUST_PROXY: '127.0.0.1' });
}, 40_000);
afterAll(() => second.stop());

/** A fresh live key of the demo organisation. */
const newKey = (options: { scopes?: string[]; rateLimit?: number | null; mode?: 'live' | 'test' } = {}) =>
  keyAdmin((admin) =>
    admin.issueKey({
      organisationId: ORG(),
      name: 'auth-e2e',
      mode: options.mode ?? 'live',
      scopes: options.scopes ?? ['events:read'],
      rateLimit: options.rateLimit === undefined ? 100_000 : options.rateLimit,
    }),
  );

async function expectFailure(response: Promise<{ status: number; body: unknown; headers: Headers }>, status: number, type: string, code: string) {
  const { status: actual, body, headers } = await response;
  expect({ status: actual, code: (body as ErrorBody).error.code }).toEqual({ status, code });
  expect((body as ErrorBody).error).toMatchObject({ type, param: null, request_id: headers.get('request-id') });
  expect(headers.get('service-version')).toBe('2026-10-18');
}

describe('authentication failures', () => {
  it('missing_api_key without an Authorization header', async () => {
    await expectFailure(api('/', { key: null }), 401, 'authentication_error', 'missing_api_key');
  });

  it.each([
    ['a malformed key', { authorization: 'Bearer svc_live_short' }],
    ['an unknown key', { authorization: 'Bearer svc_live_0123456789abcdefghijABCDEFGHIJ01' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('invalid_api_key for %s', async (_, headers) => {
    await expectFailure(api('/', { key: null, headers }), 401, 'authentication_error', 'invalid_api_key');
  });

  it('api_key_revoked on the next request on every gateway replica', async () => {
    const key = await newKey();
    expect((await api('/', { key: key.secret })).status).toBe(200);
    expect((await api('/', { key: key.secret, baseUrl: second.baseUrl })).status).toBe(200);
    await keyAdmin((admin) => admin.revokeKey(ORG(), key.id));
    await expectFailure(api('/', { key: key.secret }), 401, 'authentication_error', 'api_key_revoked');
    await expectFailure(api('/', { key: key.secret, baseUrl: second.baseUrl }), 401, 'authentication_error', 'api_key_revoked');
  });

  it('rolling with a grace period keeps the old key working (expiring), then api_key_expired', async () => {
    const key = await newKey();
    const rolled = await keyAdmin((admin) => admin.rollKey(ORG(), key.id, 24));
    expect((await api('/', { key: key.secret })).status).toBe(200);
    expect((await api('/', { key: rolled.secret })).status).toBe(200);
    const listed = await keyAdmin((admin) => admin.listKeys(ORG()));
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ state: 'expiring', replaced_by: rolled.id });
    expect(listed.find((k) => k.id === rolled.id)).toMatchObject({ state: 'active', scopes: ['events:read'] });
    await expireNow(key.id);
    await expectFailure(api('/', { key: key.secret }), 401, 'authentication_error', 'api_key_expired');
    await expectFailure(api('/', { key: key.secret, baseUrl: second.baseUrl }), 401, 'authentication_error', 'api_key_expired');
    expect((await api('/', { key: rolled.secret })).status).toBe(200);
  });

  it('rolling with grace 0 revokes the old key at once', async () => {
    const key = await newKey();
    const rolled = await keyAdmin((admin) => admin.rollKey(ORG(), key.id, 0));
    await expectFailure(api('/', { key: key.secret }), 401, 'authentication_error', 'api_key_revoked');
    expect((await api('/', { key: rolled.secret })).status).toBe(200);
  });

  it('insufficient_scope for an endpoint outside the key scopes; GET / works with any scope', async () => {
    const key = await newKey({ scopes: ['webhooks:manage'] });
    expect((await api('/', { key: key.secret })).status).toBe(200);
    await expectFailure(api('/events', { key: key.secret }), 403, 'permission_error', 'insufficient_scope');
    await expectFailure(api('/venues', { key: key.secret }), 403, 'permission_error', 'insufficient_scope');
  });

  it.each([
    ['203.0.113.0/24', '203.0.113.77', 200],
    ['203.0.113.0/24', '198.51.100.1', 403],
    ['198.51.100.7', '198.51.100.7', 200],
    ['198.51.100.7', '198.51.100.8', 403],
    ['2001:db8::/32', '2001:db8:5::1', 200],
    ['2001:db8::/32', '2001:db9::1', 403],
    ['203.0.113.0/24, 2001:db8::1', '2001:db8::1', 200],
  ])('allowlist %s, caller %s (named by the trusted proxy) → %d', async (allowlist, caller, status) => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, allowlist));
    const response = api('/', { key: key.secret, ...behindProxy(caller) });
    if (status === 200) expect((await response).status).toBe(200);
    else await expectFailure(response, 403, 'permission_error', 'ip_not_allowed');
  });

  it('widening an allowlist takes effect on the next request, on every replica', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.1'));
    const caller = '127.0.0.20';
    await expectFailure(apiFrom(caller, '/', { key: key.secret }), 403, 'permission_error', 'ip_not_allowed');
    await expectFailure(apiFrom(caller, '/', { key: key.secret, baseUrl: second.baseUrl }), 403, 'permission_error', 'ip_not_allowed');
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.1, 127.0.0.0/24'));
    expect((await apiFrom(caller, '/', { key: key.secret })).status).toBe(200);
    expect((await apiFrom(caller, '/', { key: key.secret, baseUrl: second.baseUrl })).status).toBe(200);
  });

  it('narrowing an allowlist takes effect on the next request, on every replica', async () => {
    const key = await newKey();
    const caller = '127.0.0.21';
    expect((await apiFrom(caller, '/', { key: key.secret })).status).toBe(200);
    expect((await apiFrom(caller, '/', { key: key.secret, baseUrl: second.baseUrl })).status).toBe(200);
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.1'));
    await expectFailure(apiFrom(caller, '/', { key: key.secret }), 403, 'permission_error', 'ip_not_allowed');
    await expectFailure(apiFrom(caller, '/', { key: key.secret, baseUrl: second.baseUrl }), 403, 'permission_error', 'ip_not_allowed');
  });

  it('an empty allowlist allows any address', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, ''));
    expect((await apiFrom('127.0.0.22', '/', { key: key.secret })).status).toBe(200);
    expect((await api('/', { key: key.secret, ...behindProxy('192.0.2.1') })).status).toBe(200);
  });

  it.each([
    ['Sec-Fetch-Site', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }],
    ['Origin', { origin: 'https://shop.example.com' }],
  ])('browser_request_blocked for a request carrying %s, even with a valid key', async (_, headers) => {
    await expectFailure(api('/', { headers }), 403, 'permission_error', 'browser_request_blocked');
  });
});

describe('whose address an allowlist sees (D381)', () => {
  it('with no proxy trusted, the caller’s own address: admitted from it, refused from another', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '127.0.0.30'));
    expect((await apiFrom('127.0.0.30', '/', { key: key.secret })).status).toBe(200);
    await expectFailure(apiFrom('127.0.0.31', '/', { key: key.secret }), 403, 'permission_error', 'ip_not_allowed');
  });

  it('a forged X-Forwarded-For cannot unlock a key for a caller outside its allowlist', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.5'));
    const forged = { 'x-forwarded-for': '203.0.113.5' };
    await expectFailure(api('/', { key: key.secret, headers: forged }), 403, 'permission_error', 'ip_not_allowed');
    await expectFailure(apiFrom('127.0.0.32', '/', { key: key.secret, headers: forged, baseUrl: second.baseUrl }), 403, 'permission_error', 'ip_not_allowed');
  });

  it('a forged X-Forwarded-For cannot lock out a caller the allowlist admits', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '127.0.0.33'));
    const forged = { 'x-forwarded-for': '198.51.100.9' };
    expect((await apiFrom('127.0.0.33', '/', { key: key.secret, headers: forged })).status).toBe(200);
    expect((await apiFrom('127.0.0.33', '/', { key: key.secret, headers: forged, baseUrl: second.baseUrl })).status).toBe(200);
  });

  it('a configured proxy is believed: the caller it names, not the proxy, is checked', async () => {
    const key = await newKey();
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.5'));
    expect((await api('/', { key: key.secret, ...behindProxy('203.0.113.5') })).status).toBe(200);
    await expectFailure(api('/', { key: key.secret, ...behindProxy('198.51.100.9') }), 403, 'permission_error', 'ip_not_allowed');
    await expectFailure(api('/', { key: key.secret, baseUrl: second.baseUrl }), 403, 'permission_error', 'ip_not_allowed');
  });
});

describe('the order of checks (docs/decisions.md D3)', () => {
  it('blocks a browser before looking for a key', async () => {
    await expectFailure(api('/', { key: null, headers: { origin: 'https://x.example' } }), 403, 'permission_error', 'browser_request_blocked');
  });

  it('reports a revoked key before a disallowed address', async () => {
    const key = await newKey();
    await keyAdmin(async (admin) => {
      await admin.setAllowlist(ORG(), key.id, '203.0.113.1');
      await admin.revokeKey(ORG(), key.id);
    });
    await expectFailure(api('/', { key: key.secret, ...behindProxy('198.51.100.1') }), 401, 'authentication_error', 'api_key_revoked');
  });

  it('checks the address before the scope, and counts the request before the scope', async () => {
    const key = await newKey({ scopes: ['orders:read'], rateLimit: 1 });
    await keyAdmin((admin) => admin.setAllowlist(ORG(), key.id, '203.0.113.1'));
    await expectFailure(api('/events', { key: key.secret, ...behindProxy('198.51.100.1') }), 403, 'permission_error', 'ip_not_allowed');
    await expectFailure(api('/events', { key: key.secret, ...behindProxy('203.0.113.1') }), 403, 'permission_error', 'insufficient_scope');
    await expectFailure(api('/events', { key: key.secret, ...behindProxy('203.0.113.1') }), 429, 'rate_limit_error', 'rate_limited');
  });
});

describe('headers on every response', () => {
  it('carries Request-Id and Service-Version on successes and errors, RateLimit-* for identified keys, Retry-After on 429', async () => {
    const key = await newKey({ rateLimit: 2 });
    const ok = await api('/', { key: key.secret });
    const notFound = await api('/no/such/route', { key: key.secret });
    const limited = await api('/', { key: key.secret });
    const anonymous = await api('/', { key: null });
    for (const response of [ok, notFound, limited, anonymous]) {
      expect(response.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
      expect(response.headers.get('service-version')).toBe('2026-10-18');
    }
    expect(new Set([ok, notFound, limited].map((r) => r.headers.get('request-id'))).size).toBe(3);
    expect([ok.status, notFound.status, limited.status]).toEqual([200, 404, 429]);
    expect(ok.headers.get('ratelimit-limit')).toBe('2');
    expect(ok.headers.get('ratelimit-remaining')).toBe('1');
    expect(notFound.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(limited.headers.get('retry-after')).toBe(String(reset));
    expect(ok.headers.get('retry-after')).toBeNull();
    // No key was identified: no window to describe (D6).
    expect(anonymous.headers.get('ratelimit-limit')).toBeNull();
  });

  it('gives live keys 120 and test keys 60 requests a minute by default', async () => {
    const live = await newKey({ rateLimit: null });
    const test = await newKey({ rateLimit: null, mode: 'test' });
    expect((await api('/', { key: live.secret })).headers.get('ratelimit-limit')).toBe('120');
    expect((await api('/', { key: test.secret })).headers.get('ratelimit-limit')).toBe('60');
  });
});

describe('rate limits across replicas', () => {
  it('lets exactly 120 of 300 concurrent requests through on a 120 key spread over two gateways', async () => {
    // Stay inside one 60-second window: start just after a boundary when one is near.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 200));
    const key = await newKey({ rateLimit: 120 });
    const responses = await Promise.all(
      Array.from({ length: 300 }, (_, i) => api('/', { key: key.secret, baseUrl: i % 2 ? second.baseUrl : undefined })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    expect(statuses.filter((status) => status === 429)).toHaveLength(180);
    expect(responses.filter((r) => r.status === 429).every((r) => (r.body as unknown as ErrorBody).error.code === 'rate_limited')).toBe(true);
  }, 60_000);
});
