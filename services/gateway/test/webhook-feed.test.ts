/**
 * The beta feed, replay and delivery log through the gateway: a real
 * gateway and webhooks service (its own scratch database and topic), the
 * list envelope with sealed cursors, the error envelope for bad input, an
 * Idempotency-Key retry of a replay answered from memory, and the
 * organisation's limit of five replays a minute with the spec's 429.
 */
import { eventBody, startSuite, stopSuite, waitFor, type DeliverySuite } from '../../webhooks/test/support';
import { startHarness, type Harness } from './harness';

let suite: DeliverySuite;
let harness: Harness;

beforeAll(async () => {
  suite = await startSuite();
  harness = await startHarness(['webhooks:manage'], { WEBHOOKS_GRPC_ADDR: `127.0.0.1:${suite.service.runtime.grpcPort}` });
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await stopSuite(suite ?? {});
}, 30_000);

/** The fields these tests read of an answer: a list envelope, a replay, or an error envelope. */
interface Answer {
  object?: string;
  id?: number;
  event_id?: string;
  data: Array<{ id: string } & Record<string, unknown>>;
  next_cursor: string | null;
  error: { code: string; param: string | null; request_id: string };
}

async function call(path: string, options: { method?: string; body?: unknown; idempotencyKey?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${harness.liveKey}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${harness.baseUrl}${path}`, { method: options.method ?? 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as Answer };
}

describe('GET /webhook_events', () => {
  it('pages the organisation’s events in the list envelope, with cursors bound to the listing', async () => {
    const events = [eventBody(harness.organisationId, 'ticket.issued'), eventBody(harness.organisationId, 'order.completed'), eventBody(harness.organisationId, 'ticket.issued')];
    await suite.producer.send(suite.service.topic, events.map((e) => e.body));
    await waitFor(async () => (await call('/webhook_events?limit=100')).body.data.length === 3, 15_000, 'three events in the feed');

    const first = await call('/webhook_events?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
    expect(first.body.data.map((event) => event.id)).toEqual([events[0]!.id, events[1]!.id]);
    expect(first.body.data[0]).toEqual(JSON.parse(events[0]!.body));
    const second = await call(`/webhook_events?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((event) => event.id)).toEqual([events[2]!.id]);

    const issued = await call('/webhook_events?type=ticket.issued');
    expect(issued.body.data.map((event) => event.id)).toEqual([events[0]!.id, events[2]!.id]);
    const after = await call(`/webhook_events?since=${events[0]!.id}`);
    expect(after.body.data.map((event) => event.id)).toEqual([events[1]!.id, events[2]!.id]);

    // A cursor of one listing is refused by another.
    const foreign = await call(`/webhook_events?limit=2&type=ticket.issued&cursor=${first.body.next_cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'cursor' });
  }, 30_000);

  it('refuses a bad since or type in the error envelope', async () => {
    for (const [query, param] of [
      ['since=tomorrow', 'since'],
      ['since=evt_', 'since'],
      ['type=order.exploded', 'type'],
      ['limit=0', 'limit'],
    ]) {
      const answer = await call(`/webhook_events?${query}`);
      expect([query, answer.status, answer.body.error?.code, answer.body.error?.param]).toEqual([query, 400, 'parameter_invalid', param]);
      expect(answer.body.error.request_id).toBe(answer.headers.get('request-id'));
    }
  }, 30_000);
});

describe('POST /webhook_endpoints/{id}/replay and GET /webhook_endpoints/{id}/deliveries', () => {
  it('answers 202 with the replay, replays an Idempotency-Key retry without counting it, and allows five a minute', async () => {
    const endpoint = await call('/webhook_endpoints', { method: 'POST', body: { url: `${suite.receiver.url}/gw`, event_types: ['*'] } });
    expect(endpoint.status).toBe(201);
    const since = new Date(Date.now() - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

    const missing = await call(`/webhook_endpoints/${endpoint.body.id}/replay`, { method: 'POST', body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'since' });

    const first = await call(`/webhook_endpoints/${endpoint.body.id}/replay`, { method: 'POST', body: { since }, idempotencyKey: 'replay-gw-1' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ object: 'webhook_replay', endpoint_id: endpoint.body.id, since, queued: 0 });
    expect(first.headers.get('ratelimit-limit')).toBe('5');
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    const retried = await call(`/webhook_endpoints/${endpoint.body.id}/replay`, { method: 'POST', body: { since }, idempotencyKey: 'replay-gw-1' });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(first.text);

    // The rest of the window: `remaining` more are accepted (the retry took none), then 429.
    for (let call_ = 0; call_ < remaining; call_ += 1) {
      expect((await call(`/webhook_endpoints/${endpoint.body.id}/replay`, { method: 'POST', body: { since } })).status).toBe(202);
    }
    const limited = await call(`/webhook_endpoints/${endpoint.body.id}/replay`, { method: 'POST', body: { since } });
    // Unless the window turned meanwhile, this one is over the limit.
    if (limited.status !== 202) {
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } else {
      expect(Number(limited.headers.get('ratelimit-remaining'))).toBe(4);
    }
  }, 30_000);

  it('lists an endpoint’s attempts, and refuses a bad status and an unknown endpoint', async () => {
    const endpoint = await call('/webhook_endpoints', { method: 'POST', body: { url: `${suite.receiver.url}/log`, event_types: ['event.cancelled'] } });
    const event = eventBody(harness.organisationId, 'event.cancelled');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await call(`/webhook_endpoints/${endpoint.body.id}/deliveries?status=succeeded`)).body.data.length === 1, 15_000, 'the delivery in the log');
    const log = await call(`/webhook_endpoints/${endpoint.body.id}/deliveries?event_id=${event.id}`);
    expect(log.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(log.body.data).toEqual([
      expect.objectContaining({ object: 'webhook_delivery', event_id: event.id, attempt: 1, status: 'succeeded', response_status: 200, failure_reason: null, replay_id: null, manual: false }),
    ]);

    // A test send is in the log too, found by its evt_test_ id.
    const sent = await call(`/webhook_endpoints/${endpoint.body.id}/test`, { method: 'POST', body: { type: 'ticket.issued' } });
    expect(sent.status).toBe(200);
    const testSend = await call(`/webhook_endpoints/${endpoint.body.id}/deliveries?event_id=${String(sent.body.event_id)}`);
    expect(String(sent.body.event_id)).toMatch(/^evt_test_/);
    expect(testSend.body.data).toEqual([expect.objectContaining({ event_id: sent.body.event_id, manual: true, status: 'succeeded', failure_reason: null })]);

    const badStatus = await call(`/webhook_endpoints/${endpoint.body.id}/deliveries?status=lost`);
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    const unknown = await call('/webhook_endpoints/999999999/deliveries');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
  }, 30_000);
});
