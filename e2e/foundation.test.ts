import { api, type ErrorBody } from './support/api';

describe('the running system', () => {
  it('serves the OpenAPI 3.1 document without a key', async () => {
    const { status, body } = await api<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json', { key: null });
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/', '/events/{id}']));
  });

  it('answers GET / with the api_key_info of the live key', async () => {
    const { status, body, headers } = await api('/');
    expect(status).toBe(200);
    expect(body).toEqual({
      object: 'api_key_info',
      organisation: { id: expect.any(Number), name: 'Harbour Live', slug: 'harbour-live' },
      key: { prefix: expect.stringMatching(/^svc_live_[0-9A-Za-z]{4}$/), mode: 'live', scopes: expect.arrayContaining(['events:read']) },
      livemode: true,
      api_version: '2026-10-18',
    });
    expect(headers.get('service-version')).toBe('2026-10-18');
    expect(headers.get('request-id')).toMatch(/^req_/);
    expect(Number(headers.get('ratelimit-limit'))).toBe(120);
  });

  it('answers GET / for the test key with livemode false', async () => {
    const { body } = await api('/', { key: process.env.DEMO_TEST_KEY! });
    expect(body).toMatchObject({ livemode: false, key: { mode: 'test' } });
  });

  it('refuses a request without a key in the error envelope', async () => {
    const { status, body, headers } = await api<ErrorBody>('/', { key: null });
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key', param: null });
    expect(body.error.request_id).toBe(headers.get('request-id'));
  });

  it('reads a demo event by slug through the gateway, gRPC and PostgreSQL', async () => {
    const { status, body } = await api<Record<string, unknown>>('/events/midnight-oil-reunion');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'event',
      slug: 'midnight-oil-reunion',
      title: 'Midnight Oil',
      status: 'published',
      venue: { object: 'venue', name: 'The Forum', address: { country: 'AU' } },
      ticketing: { currency: 'AUD', min_price: '89.50', max_price: '149.50' },
    });
    // 1,500 capacity, 320 sold; live checkout holds from other tests may take some.
    const remaining = (body.ticketing as { tickets_remaining: number }).tickets_remaining;
    expect(remaining).toBeLessThanOrEqual(1180);
    expect(remaining).toBeGreaterThan(1100);
    expect(body.starts_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it("hides another organisation's event behind 404 resource_missing", async () => {
    const { status, body } = await api<ErrorBody>('/events/sx-midnight-oil-reunion');
    expect(status).toBe(404);
    expect(body.error.code).toBe('resource_missing');
  });
});
