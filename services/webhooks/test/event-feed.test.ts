/**
 * The beta event feed, delivery log and replay inside the webhooks
 * service, on real PostgreSQL and Kafka with receivers on loopback: the
 * feed's paging, type filter, 30-day window and mode separation; one log
 * row per attempt with the reason it failed; and a replay sending each
 * missed event exactly once, also when two replays overlap.
 */
import { gen, toApiJson } from '@partner-api/shared';
import { EventFeedRepository } from '../src/storage/event-feed-repository';
import { eventBody, liveContext, Receiver, refusal, deliverySuite, testContext, waitFor } from './support';

const organisationId = 830_000 + Math.floor(Math.random() * 9_999);
const live = liveContext(organisationId);
const suite = deliverySuite({ WEBHOOK_TIMEOUT_MS: '500' });

const feedPage = async (ctx = live, request: { since?: string; type?: string; after?: string; limit?: number } = {}) => {
  const page = await suite.service.client.listEvents({ since: request.since, type: request.type, page: { limit: request.limit ?? 100, after: request.after ?? '' } }, ctx);
  const events = JSON.parse(Buffer.from(page.dataJson).toString('utf8')) as { id: string; type: string; livemode: boolean }[];
  return { events, hasMore: page.pageInfo?.hasMore ?? false, nextAfter: page.pageInfo?.nextAfter ?? '' };
};

/** Every id of the feed, page by page. */
async function wholeFeed(ctx = live, request: { since?: string; type?: string; limit?: number } = {}): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (;;) {
    const page = await feedPage(ctx, { ...request, after });
    ids.push(...page.events.map((event) => event.id));
    if (!page.hasMore) return ids;
    after = page.nextAfter;
  }
}

const stored = async (ids: string[]) => {
  await waitFor(async () => (await suite.database.pool.query('SELECT count(*)::int AS n FROM events WHERE id = ANY ($1)', [ids])).rows[0].n === ids.length, 15_000, 'events stored');
};

describe('the event feed', () => {
  it('pages through the organisation’s events of its mode in stored order, filtered by type, within 30 days', async () => {
    const orgId = organisationId + 100;
    const ctx = liveContext(orgId);
    const first = [eventBody(orgId, 'order.completed'), eventBody(orgId, 'ticket.issued'), eventBody(orgId, 'ticket.issued')];
    const second = [eventBody(orgId, 'order.refunded'), eventBody(orgId, 'ticket.issued')];
    const old = eventBody(orgId, 'ticket.issued', true, Math.floor(Date.now() / 1000) - 31 * 86_400);
    const testMode = eventBody(orgId, 'ticket.issued', false);
    const otherOrg = eventBody(orgId + 1, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [...first, old, testMode, otherOrg].map((e) => e.body));
    await stored([...first, old, testMode, otherOrg].map((e) => e.id));
    await suite.producer.send(suite.service.topic, second.map((e) => e.body));
    await stored(second.map((e) => e.id));

    const all = [...first, ...second].map((e) => e.id);
    // Listed once every transaction older than theirs has ended (on a busy server, a moment after they are stored).
    await waitFor(async () => (await wholeFeed(ctx)).length === all.length, 10_000, 'the feed to show the events');
    expect(await wholeFeed(ctx, { limit: 2 })).toEqual(all);
    const firstPage = await feedPage(ctx, { limit: 2 });
    expect(firstPage).toMatchObject({ hasMore: true });
    expect(firstPage.events.map((event) => event.id)).toEqual(all.slice(0, 2));
    // Bodies exactly as delivered.
    expect(firstPage.events[0]).toEqual(JSON.parse(first[0]!.body));

    expect(await wholeFeed(ctx, { type: 'ticket.issued', limit: 1 })).toEqual([first[1]!.id, first[2]!.id, second[1]!.id]);
    expect(await wholeFeed(ctx, { since: first[2]!.id })).toEqual(second.map((e) => e.id));
    expect(await wholeFeed(ctx, { since: new Date(Date.now() - 60_000).toISOString() })).toEqual(all);
    expect(await wholeFeed(ctx, { since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);

    expect(await wholeFeed(testContext(orgId))).toEqual([testMode.id]);
    expect(await wholeFeed(liveContext(orgId + 1))).toEqual([otherOrg.id]);
  }, 30_000);

  it('refuses an unknown type, a bad since, an unknown event id and a forged position', async () => {
    expect(await refusal(feedPage(live, { type: 'order.exploded' }))).toMatchObject({ code: 'parameter_invalid', param: 'type' });
    expect(await refusal(feedPage(live, { since: 'last tuesday' }))).toMatchObject({ code: 'parameter_invalid', param: 'since' });
    expect(await refusal(feedPage(live, { since: 'evt_doesnotexist' }))).toMatchObject({ code: 'parameter_invalid', param: 'since' });
    expect(await refusal(feedPage(live, { after: '["x","evt_1"]' }))).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
  }, 30_000);

  it('prunes events past the 30 days in bounded batches, keeping those with deliveries on their way', async () => {
    const orgId = organisationId + 200;
    const events = [eventBody(orgId), eventBody(orgId), eventBody(orgId)];
    await suite.producer.send(suite.service.topic, events.map((e) => e.body));
    await stored(events.map((e) => e.id));
    await suite.database.pool.query("UPDATE events SET received_at = now() - interval '31 days' WHERE id = ANY ($1)", [events.map((e) => e.id)]);
    await suite.database.pool.query(
      "INSERT INTO endpoints (organisation_id, url, event_types, mode, secret) VALUES ($1, 'https://example.com/x', '{*}', 'live', 's') RETURNING id",
      [orgId],
    );
    await suite.database.pool.query(
      "INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at) SELECT id, $2, 'order.completed', 1, 'scheduled', now() + interval '1 hour' FROM endpoints WHERE organisation_id = $1",
      [orgId, events[2]!.id],
    );
    const repository = new EventFeedRepository(suite.database.pool as never);
    const before = new Date(Date.now() - 30 * 86_400_000);
    expect(await repository.prune(before, 1)).toBe(1);
    expect(await repository.prune(before, 10)).toBe(1);
    expect(await repository.prune(before, 10)).toBe(0);
    const { rows } = await suite.database.pool.query('SELECT id FROM events WHERE id = ANY ($1)', [events.map((e) => e.id)]);
    expect(rows.map((row) => row.id)).toEqual([events[2]!.id]);
  }, 30_000);
});

describe('the delivery log', () => {
  it('writes one row per attempt with its response code, duration and failure reason', async () => {
    const closed = await new Receiver().start();
    const closedUrl = closed.url;
    await closed.stop(); // nothing listens there any more: connection refused

    suite.receiver.answer = (request) => (request.path === '/500' ? 500 : request.path === '/404' ? 404 : request.path === '/hang' ? 'hang' : 200);
    const make = (url: string) => suite.service.client.createEndpoint({ url, eventTypes: ['order.completed'], mode: '' }, live);
    const endpoints = {
      refused: await make(`${closedUrl}/refused`),
      timeout: await make(`${suite.receiver.url}/hang`),
      status5xx: await make(`${suite.receiver.url}/500`),
      status4xx: await make(`${suite.receiver.url}/404`),
      ok: await make(`${suite.receiver.url}/ok`),
      private: await make(`${suite.receiver.url}/private`),
    };
    // Saved before the rule changed: the address is refused at delivery.
    await suite.database.pool.query("UPDATE endpoints SET url = 'http://10.0.0.1/hooks' WHERE id = $1", [endpoints.private.id.toString()]);

    const event = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [event.body]);
    const log = async (endpoint: { id: bigint }, status?: string) =>
      (await suite.service.client.listDeliveries({ id: endpoint.id, eventId: event.id, status, page: { limit: 100, after: '' } }, live)).data.map((delivery) =>
        toApiJson(gen.webhooks.WebhookDeliverySchema, delivery),
      );
    const failedEndpoints = [endpoints.refused, endpoints.timeout, endpoints.status5xx, endpoints.status4xx, endpoints.private];
    await waitFor(async () => (await Promise.all(failedEndpoints.map((e) => log(e, 'failed')))).every((rows) => rows.length === 4), 30_000, 'four failed attempts each');

    const reasons = async (endpoint: { id: bigint }) => (await log(endpoint)).map((row) => [row.attempt, row.status, row.failure_reason, row.response_status]);
    expect(await reasons(endpoints.refused)).toEqual([4, 3, 2, 1].map((attempt) => [attempt, 'failed', 'connection_refused', null]));
    expect(await reasons(endpoints.timeout)).toEqual([4, 3, 2, 1].map((attempt) => [attempt, 'failed', 'timeout', null]));
    expect(await reasons(endpoints.status5xx)).toEqual([4, 3, 2, 1].map((attempt) => [attempt, 'failed', 'status_5xx', 500]));
    expect(await reasons(endpoints.status4xx)).toEqual([4, 3, 2, 1].map((attempt) => [attempt, 'failed', 'status_4xx', 404]));
    expect(await reasons(endpoints.private)).toEqual([4, 3, 2, 1].map((attempt) => [attempt, 'failed', 'address_refused', null]));
    expect(await reasons(endpoints.ok)).toEqual([[1, 'succeeded', null, 200]]);
    const timedOut = (await log(endpoints.timeout))[0]!;
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(450);
    expect(timedOut).toMatchObject({ object: 'webhook_delivery', event_id: event.id, endpoint_url: `${suite.receiver.url}/hang`, manual: false, replay_id: null });
    expect(await log(endpoints.ok, 'failed')).toEqual([]);
  }, 60_000);

  it('pages newest first and refuses a bad status or another organisation’s endpoint', async () => {
    const endpoint = await suite.service.client.createEndpoint({ url: `${suite.receiver.url}/paged`, eventTypes: ['ticket.checked_in'], mode: '' }, live);
    const events = [eventBody(organisationId, 'ticket.checked_in'), eventBody(organisationId, 'ticket.checked_in'), eventBody(organisationId, 'ticket.checked_in')];
    await suite.producer.send(suite.service.topic, events.map((e) => e.body));
    await waitFor(() => events.every((e) => suite.receiver.forEvent(e.id).length === 1), 15_000, 'three deliveries');
    await waitFor(async () => (await suite.service.client.listDeliveries({ id: endpoint.id, status: 'succeeded', page: { limit: 100, after: '' } }, live)).data.length === 3, 5_000, 'recorded');

    const first = await suite.service.client.listDeliveries({ id: endpoint.id, page: { limit: 2, after: '' } }, live);
    const second = await suite.service.client.listDeliveries({ id: endpoint.id, page: { limit: 2, after: first.pageInfo!.nextAfter } }, live);
    const ids = [...first.data, ...second.data].map((delivery) => delivery.id);
    expect(first.pageInfo?.hasMore).toBe(true);
    expect(second.pageInfo?.hasMore).toBe(false);
    expect(ids).toHaveLength(3);
    expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);

    expect(await refusal(suite.service.client.listDeliveries({ id: endpoint.id, status: 'lost', page: { limit: 2, after: '' } }, live))).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    expect(await refusal(suite.service.client.listDeliveries({ id: endpoint.id, page: { limit: 2, after: '' } }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(suite.service.client.listDeliveries({ id: endpoint.id, page: { limit: 2, after: '' } }, testContext(organisationId)))).toMatchObject({ code: 'resource_missing' });
  }, 30_000);
});

describe('replay', () => {
  it('sends each missed event exactly once, also when two replays overlap, continuing the attempt count', async () => {
    const endpoint = await suite.service.client.createEndpoint({ url: `${suite.receiver.url}/replay`, eventTypes: ['order.completed', 'order.refunded'], mode: '' }, live);
    const delivered = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [delivered.body]);
    await waitFor(() => suite.receiver.forEvent(delivered.id).length === 1, 15_000, 'the first event delivered');

    // The receiver goes down: four events fail all four attempts.
    suite.receiver.answer = (request) => (request.path === '/replay' ? 503 : 200);
    const missed = [eventBody(organisationId, 'order.completed'), eventBody(organisationId, 'order.refunded'), eventBody(organisationId, 'order.completed'), eventBody(organisationId, 'order.refunded')];
    const unsubscribed = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [...missed, unsubscribed].map((e) => e.body));
    await waitFor(async () => {
      const { rows } = await suite.database.pool.query("SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'failed'", [endpoint.id.toString()]);
      return rows[0].n === 16;
    }, 30_000, 'every attempt failed');
    await suite.database.pool.query("UPDATE endpoints SET enabled = false, disabled_at = now(), disabled_reason = 'consecutive_failures' WHERE id = $1", [endpoint.id.toString()]);

    const since = new Date(Date.now() - 3_600_000).toISOString();
    // Disabled: the replay is refused until the endpoint is enabled again.
    expect(await refusal(suite.service.client.replayEndpoint({ id: endpoint.id, since }, live))).toMatchObject({ code: 'endpoint_disabled' });
    await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: true, eventTypes: [], setEventTypes: false }, live);
    suite.receiver.answer = () => 200;
    const before = suite.receiver.requests.length;

    const [one, two] = await Promise.all([suite.service.client.replayEndpoint({ id: endpoint.id, since }, live), suite.service.client.replayEndpoint({ id: endpoint.id, since }, live)]);
    expect(one.queued + two.queued).toBe(4);
    expect(one).toMatchObject({ object: 'webhook_replay', endpointId: endpoint.id, since: since.replace(/\.\d{3}Z$/, 'Z') });
    await waitFor(() => missed.every((e) => suite.receiver.forEvent(e.id).length === 5), 15_000, 'each missed event sent again');
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing else may follow

    expect(suite.receiver.requests.length - before).toBe(4);
    for (const event of missed) expect(suite.receiver.forEvent(event.id).at(-1)!.headers['service-delivery-attempt']).toBe('5');
    expect(suite.receiver.forEvent(delivered.id)).toHaveLength(1);
    expect(suite.receiver.forEvent(unsubscribed.id)).toHaveLength(0);
    const replayed = await suite.service.client.listDeliveries({ id: endpoint.id, status: 'succeeded', page: { limit: 100, after: '' } }, live);
    expect(replayed.data.filter((delivery) => delivery.replayId !== undefined).map((delivery) => delivery.eventId).sort()).toEqual(missed.map((e) => e.id).sort());

    // Nothing is missed any more: a third replay queues nothing.
    expect((await suite.service.client.replayEndpoint({ id: endpoint.id, since }, live)).queued).toBe(0);
  }, 60_000);

  it('gives a replayed event the whole retry schedule again, then stops', async () => {
    const endpoint = await suite.service.client.createEndpoint({ url: `${suite.receiver.url}/again`, eventTypes: ['event.cancelled'], mode: '' }, live);
    suite.receiver.answer = (request) => (request.path === '/again' ? 500 : 200);
    const event = eventBody(organisationId, 'event.cancelled');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length === 4, 15_000, 'four attempts');
    await waitFor(async () => (await suite.database.pool.query("SELECT count(*)::int AS n FROM deliveries WHERE event_id = $1 AND status = 'failed'", [event.id])).rows[0].n === 4, 5_000, 'recorded');

    expect((await suite.service.client.replayEndpoint({ id: endpoint.id, since: new Date(Date.now() - 60_000).toISOString() }, live)).queued).toBe(1);
    await waitFor(() => suite.receiver.forEvent(event.id).length === 8, 15_000, 'four more attempts');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(suite.receiver.forEvent(event.id).map((request) => request.headers['service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
  }, 30_000);

  it('keeps test keys to test endpoints and refuses a bad since', async () => {
    const liveEndpoint = await suite.service.client.createEndpoint({ url: `${suite.receiver.url}/live`, eventTypes: [], mode: '' }, live);
    const testEndpoint = await suite.service.client.createEndpoint({ url: `${suite.receiver.url}/test`, eventTypes: [], mode: 'test' }, testContext(organisationId));
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(await refusal(suite.service.client.replayEndpoint({ id: liveEndpoint.id, since }, testContext(organisationId)))).toMatchObject({ code: 'resource_missing' });
    expect(await suite.service.client.replayEndpoint({ id: testEndpoint.id, since }, testContext(organisationId))).toMatchObject({ queued: 0 });
    expect(await refusal(suite.service.client.replayEndpoint({ id: liveEndpoint.id, since: '' }, live))).toMatchObject({ code: 'parameter_missing', param: 'since' });
    expect(await refusal(suite.service.client.replayEndpoint({ id: liveEndpoint.id, since: 'soon' }, live))).toMatchObject({ code: 'parameter_invalid', param: 'since' });
  }, 30_000);
});
