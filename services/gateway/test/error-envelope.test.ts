import { startHarness, type Harness } from './harness';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
}, 60_000);

afterAll(async () => {
  await harness.stop();
});

describe('errors from a service reach the partner in the spec envelope', () => {
  it('turns a gRPC resource_missing from inventory into HTTP 404 with every envelope field', async () => {
    const response = await fetch(`${harness.baseUrl}/events/no-such-event-anywhere`, {
      headers: { Authorization: `Bearer ${harness.liveKey}` },
    });
    expect(response.status).toBe(404);
    const requestId = response.headers.get('request-id');
    expect(requestId).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(response.headers.get('service-version')).toBe('2026-10-18');
    expect(await response.json()).toEqual({
      error: {
        type: 'not_found_error',
        code: 'resource_missing',
        message: 'No such event.',
        param: 'id',
        request_id: requestId,
        doc_url: expect.stringMatching(/^https:\/\/.+#resource_missing$/),
      },
    });
  });

  it('answers an unknown path with 404 route_not_found in the same envelope', async () => {
    const response = await fetch(`${harness.baseUrl}/no/such/route`, {
      headers: { Authorization: `Bearer ${harness.liveKey}` },
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; type: string; request_id: string } };
    expect(body.error).toMatchObject({ code: 'route_not_found', type: 'not_found_error' });
    expect(body.error.request_id).toBe(response.headers.get('request-id'));
  });

  it("answers a checkout 500 hold_failed, and any other call 500 internal_error, while the gateway's Redis is away", async () => {
    const { loadGatewayConfig, startGateway } = await import('@partner-api/gateway');
    const { createLogger } = await import('@partner-api/shared');
    // A Redis nothing listens on (one Redis, whatever the suite runs against).
    const env: NodeJS.ProcessEnv = { ...process.env, HTTP_PORT: '0', OPS_PORT: '0', GRPC_PORT: '0', REDIS_URL: 'redis://127.0.0.1:1', INVENTORY_GRPC_ADDR: '127.0.0.1:1', ORDERS_GRPC_ADDR: '127.0.0.1:1' };
    delete env.REDIS_CLUSTER_NODES;
    const stranded = await startGateway(loadGatewayConfig(env), createLogger('stranded', 'silent'));
    try {
      const call = (path: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${stranded.port}${path}`, { ...init, headers: { Authorization: `Bearer ${harness.liveKey}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
      const checkout = await call('/checkout_sessions', { method: 'POST', headers: { 'Idempotency-Key': `redis-away-${Date.now()}` }, body: JSON.stringify({ event_id: 'any', items: [{ ticket_type_id: 1, quantity: 1 }] }) });
      expect(checkout.status).toBe(500);
      expect(((await checkout.json()) as { error: Record<string, unknown> }).error).toMatchObject({ type: 'api_error', code: 'hold_failed', param: null });
      const read = await call('/events/1');
      expect(read.status).toBe(500);
      expect(((await read.json()) as { error: Record<string, unknown> }).error).toMatchObject({ type: 'api_error', code: 'internal_error' });
    } finally {
      await stranded.runtime.stop();
    }
    // A required Redis fails its commands at once while away (queueOnlyUntilFirstConnect): seconds, not ioredis' reconnect cycle.
  }, 30_000);

  it('answers 500 internal_error, without internals, when the service is unreachable', async () => {
    const { loadGatewayConfig, startGateway } = await import('@partner-api/gateway');
    const { createLogger } = await import('@partner-api/shared');
    const lonely = await startGateway(
      loadGatewayConfig({ ...process.env, HTTP_PORT: '0', OPS_PORT: '0', GRPC_PORT: '0', INVENTORY_GRPC_ADDR: '127.0.0.1:1' }),
      createLogger('lonely', 'silent'),
    );
    try {
      const response = await fetch(`http://127.0.0.1:${lonely.port}/events/1`, {
        headers: { Authorization: `Bearer ${harness.liveKey}` },
      });
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ type: 'api_error', code: 'internal_error', message: 'An internal error occurred.', param: null });
    } finally {
      await lonely.runtime.stop();
    }
  });
});
