/**
 * Managing endpoints and sending test events through the webhooks
 * service's gRPC API, on a database of its own. One service allows
 * loopback receivers (as local development does); a second runs with the
 * default policy, under which loopback and private receivers are refused
 * when saved and, for one that got into the table anyway, when delivering,
 * before any connection is made.
 */
import type { ApiError } from '@partner-api/shared';
import { verifySignature } from '@partner-api/shared';
import { eventBody, eventProducer, liveContext, Receiver, scratchDatabase, startService, refusal, testContext, waitFor, type ServiceUnderTest } from './support';

const organisationId = 820_000 + Math.floor(Math.random() * 9_999);
const live = liveContext(organisationId);
const test = testContext(organisationId);
let database: Awaited<ReturnType<typeof scratchDatabase>>;
// Every webhooks process sends the due deliveries of its database: the strict one gets a database of its own.
let strictDatabase: Awaited<ReturnType<typeof scratchDatabase>>;
let local: ServiceUnderTest;
let strict: ServiceUnderTest;
let receiver: Receiver;

beforeAll(async () => {
  database = await scratchDatabase();
  local = await startService(database.url, { WEBHOOK_TIMEOUT_MS: '1000' });
  strictDatabase = await scratchDatabase();
  strict = await startService(strictDatabase.url, { WEBHOOK_ALLOW_LOOPBACK_RECEIVERS: 'false' });
  receiver = await new Receiver().start();
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await strict?.stop();
  await local?.stop();
  await database?.drop();
  await strictDatabase?.drop();
}, 30_000);

afterEach(async () => {
  receiver.answer = () => 200;
  await database.pool.query('DELETE FROM endpoints');
});

describe('creating and reading endpoints', () => {
  it('returns the secret once, then only its hint', async () => {
    const created = await local.client.createEndpoint({ url: `${receiver.url}/hooks`, eventTypes: ['order.completed', 'order.completed'], description: 'Orders' }, live);
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      url: `${receiver.url}/hooks`,
      description: 'Orders',
      eventTypes: ['order.completed'],
      enabled: true,
      status: 'enabled',
      mode: 'live',
      consecutiveFailures: 0,
    });
    expect(created.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(created.secretHint).toBe(`whsec_…${created.secret!.slice(-4)}`);
    const read = await local.client.getEndpoint({ id: created.id }, live);
    expect(read.secret).toBeUndefined();
    expect(read.secretHint).toBe(created.secretHint);
    expect((await local.client.listEndpoints({}, live)).data.map((endpoint) => endpoint.id)).toEqual([created.id]);
  });

  it('subscribes to everything by default', async () => {
    expect((await local.client.createEndpoint({ url: receiver.url }, live)).eventTypes).toEqual(['*']);
  });

  it('keeps live and test endpoints apart for test keys', async () => {
    const liveEndpoint = await local.client.createEndpoint({ url: `${receiver.url}/live` }, live);
    const testEndpoint = await local.client.createEndpoint({ url: `${receiver.url}/test` }, test);
    expect(testEndpoint.mode).toBe('test');
    expect((await local.client.listEndpoints({}, test)).data.map((endpoint) => endpoint.id)).toEqual([testEndpoint.id]);
    expect((await local.client.listEndpoints({}, live)).data.map((endpoint) => endpoint.id)).toEqual([liveEndpoint.id, testEndpoint.id]);
    expect(await refusal(local.client.getEndpoint({ id: liveEndpoint.id }, test))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(local.client.deleteEndpoint({ id: liveEndpoint.id }, test))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(local.client.createEndpoint({ url: receiver.url, mode: 'live' }, test))).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
  });

  it("never shows another organisation's endpoint", async () => {
    const mine = await local.client.createEndpoint({ url: receiver.url }, live);
    expect(await refusal(local.client.getEndpoint({ id: mine.id }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect(await refusal(local.client.updateEndpoint({ id: mine.id, enabled: false }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
  });

  it('refuses bad fields with the field named', async () => {
    expect(await refusal(local.client.createEndpoint({ url: '' }, live))).toMatchObject({ code: 'parameter_missing', param: 'url' });
    expect(await refusal(local.client.createEndpoint({ url: `https://hooks.example.com/${'x'.repeat(2_030)}` }, live))).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    expect(await refusal(local.client.createEndpoint({ url: receiver.url, eventTypes: ['order.completed', 'order.shipped'] }, live))).toMatchObject({ code: 'parameter_invalid', param: 'event_types[1]' });
    expect(await refusal(local.client.createEndpoint({ url: receiver.url, description: 'd'.repeat(256) }, live))).toMatchObject({ code: 'parameter_invalid', param: 'description' });
    expect(await refusal(local.client.createEndpoint({ url: receiver.url, mode: 'staging' }, live))).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
  });

  it('holds an organisation to 20 endpoints, even when they are created at once', async () => {
    const results = await Promise.allSettled(Array.from({ length: 25 }, (_, index) => local.client.createEndpoint({ url: `${receiver.url}/${index}` }, live)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(rejected.map((result) => (result.reason as ApiError).code)).toEqual(Array(5).fill('parameter_invalid'));
  });
});

describe('updating and deleting endpoints', () => {
  it('changes only the fields sent; an empty description clears it', async () => {
    const created = await local.client.createEndpoint({ url: `${receiver.url}/a`, description: 'First', eventTypes: ['ticket.issued'] }, live);
    const moved = await local.client.updateEndpoint({ id: created.id, url: `${receiver.url}/b` }, live);
    expect(moved).toMatchObject({ url: `${receiver.url}/b`, description: 'First', eventTypes: ['ticket.issued'] });
    const retyped = await local.client.updateEndpoint({ id: created.id, eventTypes: ['*'], setEventTypes: true, description: '' }, live);
    expect(retyped.eventTypes).toEqual(['*']);
    expect(retyped.description).toBeUndefined();
    expect(await refusal(local.client.updateEndpoint({ id: created.id, eventTypes: [], setEventTypes: true }, live))).toMatchObject({ code: 'parameter_invalid', param: 'event_types' });
  });

  it('deleting stops every delivery at once', async () => {
    const producer = await eventProducer();
    try {
      const endpoint = await local.client.createEndpoint({ url: `${receiver.url}/gone`, eventTypes: ['order.completed'] }, live);
      receiver.answer = () => 500;
      const event = eventBody(organisationId);
      await producer.send(local.topic, [event.body]);
      await waitFor(() => receiver.forEvent(event.id).length >= 1, 15_000, 'the first attempt');
      await local.client.deleteEndpoint({ id: endpoint.id }, live);
      const sent = receiver.forEvent(event.id).length;
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(receiver.forEvent(event.id)).toHaveLength(sent);
      expect((await database.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1', [endpoint.id.toString()])).rows[0].n).toBe(0);
      expect(await refusal(local.client.getEndpoint({ id: endpoint.id }, live))).toMatchObject({ code: 'resource_missing' });
    } finally {
      await producer.close();
    }
  });
});

describe('test events', () => {
  it('sends a signed sample of the type asked for, once, and returns the delivery', async () => {
    const endpoint = await local.client.createEndpoint({ url: `${receiver.url}/test-me`, eventTypes: ['order.completed'] }, live);
    const delivery = await local.client.sendTestEvent({ id: endpoint.id, type: 'ticket.checked_in' }, live);
    expect(delivery).toMatchObject({ object: 'webhook_delivery', endpointId: endpoint.id, endpointUrl: `${receiver.url}/test-me`, eventType: 'ticket.checked_in', attempt: 1, status: 'succeeded', responseStatus: 200, manual: true });
    expect(delivery.nextRetryAt).toBeUndefined();
    const [request] = receiver.forEvent(delivery.eventId);
    const body = JSON.parse(request!.body) as { type: string; livemode: boolean; organisation_id: number; data: { object: { object: string } } };
    expect(body).toMatchObject({ type: 'ticket.checked_in', livemode: false, organisation_id: organisationId, data: { object: { object: 'ticket' } } });
    expect(request!.headers['service-delivery-attempt']).toBe('1');
    expect(verifySignature(String(request!.headers['service-signature']), request!.body, endpoint.secret!)).toBe(true);
  });

  it('falls back to order.completed, and a failed send is test_event_failed, never retried, and leaves the health alone', async () => {
    const endpoint = await local.client.createEndpoint({ url: `${receiver.url}/broken` }, live);
    receiver.answer = () => 503;
    const failure = await refusal(local.client.sendTestEvent({ id: endpoint.id, type: 'nonsense.type' }, live));
    expect(failure).toMatchObject({ code: 'test_event_failed' });
    expect(failure.message).toContain('answered 503');
    const [request] = receiver.requests.filter((received) => received.path === '/broken');
    expect(request!.headers['service-event-type']).toBe('order.completed');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.requests.filter((received) => received.path === '/broken')).toHaveLength(1);
    expect(await local.client.getEndpoint({ id: endpoint.id }, live)).toMatchObject({ status: 'enabled', consecutiveFailures: 0 });
  });

  it('works for a test key on its test endpoint', async () => {
    const endpoint = await local.client.createEndpoint({ url: `${receiver.url}/sandbox` }, test);
    expect(await local.client.sendTestEvent({ id: endpoint.id }, test)).toMatchObject({ status: 'succeeded', eventType: 'order.completed' });
  });
});

describe('receiver addresses under the default policy', () => {
  it.each([
    ['plain http', 'http://hooks.example.com/'],
    ['a loopback address', 'https://127.0.0.1:8443/'],
    ['localhost', 'https://localhost/'],
    ['a private address', 'https://10.0.0.8/'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data'],
    ['an internal name', 'https://payments.internal/'],
    ['localhost with the root dot', 'https://localhost./'],
    ['an internal name with the root dot', 'https://metadata.google.internal./'],
    ['an IPv4-compatible loopback', 'https://[::7f00:1]/'],
    ['an IPv4-compatible loopback, dotted', 'https://[::127.0.0.1]/'],
    ['an IPv4-compatible metadata address', 'https://[::a9fe:a9fe]/'],
    ['an IPv4-compatible private address', 'https://[::a00:1]/'],
  ])('refuses %s when saving', async (_, url) => {
    expect(await refusal(strict.client.createEndpoint({ url }, live))).toMatchObject({ code: 'parameter_invalid', param: 'url' });
  });

  it('accepts a public https address', async () => {
    // Stored only: this service's topic carries no events, so nothing is ever sent to it.
    expect((await strict.client.createEndpoint({ url: 'https://93.184.216.34/hooks' }, live)).url).toBe('https://93.184.216.34/hooks');
  });

  it('refuses at delivery time too, before connecting: a stored loopback receiver gets no connection', async () => {
    // As if the address was public when saved and now points inside (DNS rebinding), or the policy was tightened.
    const { rows } = await strictDatabase.pool.query<{ id: string }>(
      `INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES ($1, $2, '{*}', 'live', 'whsec_0123456789abcdefghijABCDEFGHIJ') RETURNING id`,
      [organisationId, `https://localhost:${new URL(receiver.url).port}/inside`],
    );
    const connectionsBefore = receiver.connections;
    const failure = await refusal(strict.client.sendTestEvent({ id: BigInt(rows[0]!.id) }, live));
    expect(failure).toMatchObject({ code: 'test_event_failed' });
    expect(failure.message).toContain('refused');
    expect(receiver.connections).toBe(connectionsBefore);
  });

  it.each([
    ['an internal name with the root dot', 'https://metadata.google.internal./computeMetadata/v1/', 'internal name'],
    // {port} is the loopback receiver's: were the URL let through, the receiver would see the connection.
    ['localhost with the root dot', 'https://LOCALHOST.:{port}/inside', 'loopback name'],
    ['an IPv4-compatible loopback', 'https://[::7f00:1]:{port}/inside', 'private or internal'],
    ['an IPv4-compatible metadata address', 'https://[::a9fe:a9fe]/latest/meta-data', 'private or internal'],
  ])('refuses %s stored before the policy knew it, at delivery time', async (_, url, reason) => {
    const { rows } = await strictDatabase.pool.query<{ id: string }>(
      `INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES ($1, $2, '{*}', 'live', 'whsec_0123456789abcdefghijABCDEFGHIJ') RETURNING id`,
      [organisationId, url.replace('{port}', new URL(receiver.url).port)],
    );
    const connectionsBefore = receiver.connections;
    const failure = await refusal(strict.client.sendTestEvent({ id: BigInt(rows[0]!.id) }, live));
    expect(failure).toMatchObject({ code: 'test_event_failed' });
    expect(failure.message).toContain('refused: ');
    expect(failure.message).toContain(reason);
    expect(receiver.connections).toBe(connectionsBefore);
  });
});
