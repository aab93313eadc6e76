/**
 * The beta event feed, delivery log and replay over HTTP, against the
 * running stack (receivers on loopback, as local development allows): an
 * endpoint whose receiver fails, then is paused through the API, misses
 * three catalog events; the delivery log shows the failure with its
 * reason; after re-enabling, a replay delivers every missed event exactly
 * once (a retry with the same Idempotency-Key and a second overlapping
 * replay queue nothing more), and the organisation's replays are limited
 * to five a minute.
 */
import { api, type ErrorBody } from './support/api';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { Receiver, waitFor } from '../services/webhooks/test/support';
import { partnerAccepts } from './support/webhooks';

interface Delivery {
  object: string;
  event_id: string;
  attempt: number;
  status: string;
  response_status: number | null;
  duration_ms: number;
  failure_reason: string | null;
  replay_id: number | null;
}
interface Replay {
  object: string;
  id: number;
  endpoint_id: number;
  since: string;
  queued: number;
}
interface FeedEvent {
  id: string;
  type: string;
  livemode: boolean;
  data: { object: { slug: string } };
}
interface List<T> {
  object: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

let organisation: { id: number; key: string };
let receiver: Receiver;
let inventory: InventoryClient;
const startedAt = new Date(Date.now() - 5_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

beforeAll(async () => {
  organisation = await newOrganisation(['webhooks:manage', 'events:read']);
  receiver = await new Receiver().start();
  inventory = inventoryClient();
}, 30_000);

afterAll(async () => {
  inventory?.close();
  await receiver?.stop();
});

const errorOf = (body: unknown) => (body as ErrorBody).error;

async function publishEvent(prefix: string): Promise<string> {
  const ctx = operatorContext(organisation.id);
  const slug = uniqueSlug(prefix);
  await inventory.upsertEvent({ fields: { slug, title: 'Replayed Live', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return slug;
}

/** Every event of the organisation's feed of one type, page by page. */
async function feed(type: string): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?type=${type}&since=${encodeURIComponent(startedAt)}&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await api<List<FeedEvent>>(`/webhook_events${query}`, { key: organisation.key });
    expect(page.status).toBe(200);
    events.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return events;
}

const replay = (endpointId: number, since: string, idempotencyKey?: string) =>
  api<Replay>(`/webhook_endpoints/${endpointId}/replay`, {
    method: 'POST',
    key: organisation.key,
    body: { since },
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
  });

describe('replay after a pause', () => {
  it('delivers everything missed exactly once per event, and the log shows the failures with reasons', async () => {
    const created = await api<{ id: number; secret: string }>('/webhook_endpoints', {
      method: 'POST',
      key: organisation.key,
      body: { url: `${receiver.url}/replay`, event_types: ['event.published'] },
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.id;

    // The receiver is down: the first event's delivery fails.
    receiver.answer = (request) => (request.path === '/replay' ? 503 : 200);
    const first = await publishEvent('replay-a');
    await waitFor(() => receiver.requests.some((request) => request.path === '/replay'), 20_000, 'the failed first attempt');
    const failedLog = async () => (await api<List<Delivery>>(`/webhook_endpoints/${endpointId}/deliveries?status=failed`, { key: organisation.key })).body.data;
    await waitFor(async () => (await failedLog()).length === 1, 10_000, 'the failure in the log');
    expect((await failedLog())[0]).toMatchObject({ object: 'webhook_delivery', attempt: 1, status: 'failed', response_status: 503, failure_reason: 'status_5xx', replay_id: null });

    // Paused through the API: what follows is missed.
    expect((await api(`/webhook_endpoints/${endpointId}`, { method: 'PATCH', key: organisation.key, body: { enabled: false } })).status).toBe(200);
    const missedSlugs = [first, await publishEvent('replay-b'), await publishEvent('replay-c')];
    await waitFor(async () => (await feed('event.published')).length === 3, 20_000, 'three events in the feed');
    const events = await feed('event.published');
    expect(events.map((event) => event.data.object.slug).sort()).toEqual([...missedSlugs].sort());
    expect(events.every((event) => event.livemode)).toBe(true);
    const requestsBefore = receiver.requests.filter((request) => request.path === '/replay').length;
    expect(requestsBefore).toBe(1);

    // A paused endpoint is not replayed to.
    const refused = await replay(endpointId, startedAt);
    expect(refused.status).toBe(409);
    expect(errorOf(refused.body)).toMatchObject({ type: 'conflict_error', code: 'endpoint_disabled' });

    expect((await api(`/webhook_endpoints/${endpointId}`, { method: 'PATCH', key: organisation.key, body: { enabled: true } })).status).toBe(200);
    receiver.answer = () => 200;

    const accepted = await replay(endpointId, startedAt, `replay-${endpointId}`);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ object: 'webhook_replay', endpoint_id: endpointId, since: startedAt, queued: 3 });
    // The same request again: the same answer, nothing queued twice.
    const retried = await replay(endpointId, startedAt, `replay-${endpointId}`);
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(accepted.body);
    // A second replay while the first's deliveries are on their way queues nothing.
    const overlapping = await replay(endpointId, startedAt);
    expect(overlapping.status).toBe(202);
    expect(overlapping.body.queued).toBe(0);

    const ids = events.map((event) => event.id);
    const firstEvent = events.find((event) => event.data.object.slug === first)!;
    // The first event: its failed attempt, then the replay; the others only the replay.
    const expected = (id: string) => (id === firstEvent.id ? 2 : 1);
    const toEndpoint = (id: string) => receiver.forEvent(id).filter((request) => request.path === '/replay');
    await waitFor(() => ids.every((id) => toEndpoint(id).length >= expected(id)), 20_000, 'the replayed deliveries');
    await waitFor(async () => (await api<List<Delivery>>(`/webhook_endpoints/${endpointId}/deliveries?status=succeeded`, { key: organisation.key })).body.data.length === 3, 20_000, 'three successes in the log');
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // nothing else may follow

    for (const event of events) {
      const received = toEndpoint(event.id);
      expect(received).toHaveLength(expected(event.id));
      const last = received.at(-1)!;
      expect(partnerAccepts(String(last.headers['service-signature']), last.body, created.body.secret)).toBe(true);
    }
    // The first event's count goes on past its failed and cancelled attempts; the others start at 1.
    expect(receiver.forEvent(firstEvent.id).at(-1)!.headers['service-delivery-attempt']).toBe('3');

    const succeeded = (await api<List<Delivery>>(`/webhook_endpoints/${endpointId}/deliveries?status=succeeded`, { key: organisation.key })).body.data;
    expect(succeeded.map((delivery) => delivery.event_id).sort()).toEqual([...ids].sort());
    expect(succeeded.every((delivery) => delivery.replay_id === accepted.body.id && delivery.response_status === 200)).toBe(true);
    const ofFirst = (await api<List<Delivery>>(`/webhook_endpoints/${endpointId}/deliveries?event_id=${firstEvent.id}`, { key: organisation.key })).body.data;
    expect(ofFirst.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
      [3, 'succeeded'],
      [2, 'cancelled'],
      [1, 'failed'],
    ]);

    // Nothing is missed any more.
    expect((await replay(endpointId, startedAt)).body.queued).toBe(0);
  }, 90_000);
});

describe('limits and rules', () => {
  // The rate limit's test goes last: it uses up the organisation's replays for the minute.
  it('keeps test keys to test endpoints and test events, and refuses bad input in the error envelope', async () => {
    const testKey = await issueKey(organisation.id, ['webhooks:manage'], 'test');
    const liveEndpoint = await api<{ id: number }>('/webhook_endpoints', { method: 'POST', key: organisation.key, body: { url: `${receiver.url}/live-only` } });
    const asTest = await api(`/webhook_endpoints/${liveEndpoint.body.id}/replay`, { method: 'POST', key: testKey, body: { since: startedAt } });
    expect(asTest.status).toBe(404);
    expect(errorOf(asTest.body).code).toBe('resource_missing');
    const testFeed = await api<List<FeedEvent>>('/webhook_events', { key: testKey });
    expect(testFeed.status).toBe(200);
    expect(testFeed.body.data.every((event) => !event.livemode)).toBe(true);

    const badSince = await api('/webhook_events?since=yesterday', { key: organisation.key });
    expect(badSince.status).toBe(400);
    expect(errorOf(badSince.body)).toMatchObject({ code: 'parameter_invalid', param: 'since' });
    const badType = await api('/webhook_events?type=order.exploded', { key: organisation.key });
    expect(errorOf(badType.body)).toMatchObject({ code: 'parameter_invalid', param: 'type' });
    const badStatus = await api(`/webhook_endpoints/${liveEndpoint.body.id}/deliveries?status=lost`, { key: organisation.key });
    expect(errorOf(badStatus.body)).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    const noScope = await api('/webhook_events', { key: await issueKey(organisation.id, ['events:read']) });
    expect(noScope.status).toBe(403);
    expect(errorOf(noScope.body).code).toBe('insufficient_scope');
  }, 30_000);

  it('allows an organisation five replays a minute, then 429 with Retry-After', async () => {
    const created = await api<{ id: number }>('/webhook_endpoints', { method: 'POST', key: organisation.key, body: { url: `${receiver.url}/limited` } });
    let limited: Awaited<ReturnType<typeof replay>> | undefined;
    for (let call = 0; call < 7 && !limited; call += 1) {
      const answer = await replay(created.body.id, startedAt);
      if (answer.status === 429) limited = answer;
      else expect(answer.status).toBe(202);
    }
    expect(limited).toBeDefined();
    expect(errorOf(limited!.body)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(limited!.headers.get('ratelimit-limit')).toBe('5');
    expect(limited!.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);
});
