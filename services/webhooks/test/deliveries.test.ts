/**
 * Live deliveries end to end inside the webhooks service: events produced
 * to Kafka, stored once, fanned out to the organisation's subscribed live
 * endpoints, signed, POSTed to receivers on loopback, retried by the
 * schedule (shortened here to 100 ms steps, four attempts), with endpoint
 * health and automatic disabling.
 */
import type { Pool } from 'pg';
import { ensureTopic, randomBase62 } from '@partner-api/shared';
import { testKafka } from '../../shared/test/support';
import { verifySignature } from '@partner-api/shared';
import { eventBody, liveContext, scratchDatabase, startService, deliverySuite, waitFor } from './support';

const organisationId = 810_000 + Math.floor(Math.random() * 9_999);
const ctx = liveContext(organisationId);
// Each test starts without endpoints (the database is this suite's own).
const suite = deliverySuite({ WEBHOOK_TIMEOUT_MS: '1000' });

const createEndpoint = (path: string, options: { eventTypes?: string[]; mode?: string; organisation?: number } = {}) =>
  suite.service.client.createEndpoint(
    { url: `${suite.receiver.url}${path}`, eventTypes: options.eventTypes ?? [], mode: options.mode ?? '' },
    liveContext(options.organisation ?? organisationId),
  );

const deliveriesOf = (pool: Pool, eventId: string) =>
  pool
    .query<{ endpoint_id: string; attempt: number; status: string; response_status: number | null; error: string | null; next_retry_at: Date | null }>(
      'SELECT endpoint_id, attempt, status, response_status, error, next_retry_at FROM deliveries WHERE event_id = $1 ORDER BY endpoint_id, attempt',
      [eventId],
    )
    .then((result) => result.rows);

describe('fan-out and signing', () => {
  it('delivers an event to every subscribed live endpoint of its organisation, signed, with the exact bytes from Kafka', async () => {
    const all = await createEndpoint('/all');
    const orders = await createEndpoint('/orders', { eventTypes: ['order.completed'] });
    await createEndpoint('/tickets', { eventTypes: ['ticket.issued'] });
    await createEndpoint('/test-mode', { mode: 'test' });
    await createEndpoint('/other-org', { organisation: organisationId + 1 });

    const event = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 2, 15_000, 'two deliveries');
    await new Promise((resolve) => setTimeout(resolve, 300)); // nothing else may follow

    const requests = suite.receiver.forEvent(event.id);
    expect(requests.map((request) => request.path).sort()).toEqual(['/all', '/orders']);
    for (const request of requests) {
      expect(request.body).toBe(event.body);
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'PartnerAPI-Webhooks/1.0',
        'service-event-id': event.id,
        'service-event-type': 'order.completed',
        'service-delivery-attempt': '1',
      });
      const secret = request.path === '/all' ? all.secret! : orders.secret!;
      expect(verifySignature(String(request.headers['service-signature']), request.body, secret)).toBe(true);
    }
  });

  it('stores an event once: the same message read twice is delivered once', async () => {
    await createEndpoint('/dedupe', { eventTypes: ['ticket.checked_in'] });
    const event = eventBody(organisationId, 'ticket.checked_in');
    await suite.producer.send(suite.service.topic, [event.body, event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 1, 15_000, 'the delivery');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(suite.receiver.forEvent(event.id)).toHaveLength(1);
  });

  it('sends nothing for test-mode events and skips messages that are not events', async () => {
    await createEndpoint('/modes', { eventTypes: ['event.published'] });
    const testEvent = eventBody(organisationId, 'event.published', false);
    const liveEvent = eventBody(organisationId, 'event.published', true);
    await suite.producer.send(suite.service.topic, ['not json', '{"id":"nope"}', testEvent.body, liveEvent.body]);
    await waitFor(() => suite.receiver.forEvent(liveEvent.id).length >= 1, 15_000, 'the live delivery after the bad messages');
    expect(suite.receiver.forEvent(testEvent.id)).toHaveLength(0);
  });
});

describe('retries and endpoint health', () => {
  it('retries a failing delivery with a rising attempt number, and a success heals the endpoint', async () => {
    const endpoint = await createEndpoint('/flaky', { eventTypes: ['order.refunded'] });
    let answered = 0;
    suite.receiver.answer = (request) => (request.path === '/flaky' && answered++ < 2 ? 503 : 200);
    const event = eventBody(organisationId, 'order.refunded');
    await suite.producer.send(suite.service.topic, [event.body]);

    await waitFor(() => suite.receiver.forEvent(event.id).length >= 2, 15_000, 'a retry');
    expect(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).toMatchObject({ status: 'failing', consecutiveFailures: expect.any(Number) });
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 3, 15_000, 'the third attempt');
    await waitFor(async () => (await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).status === 'enabled', 5_000, 'the endpoint to heal');

    expect(suite.receiver.forEvent(event.id).map((request) => request.headers['service-delivery-attempt'])).toEqual(['1', '2', '3']);
    const healed = await suite.service.client.getEndpoint({ id: endpoint.id }, ctx);
    expect(healed).toMatchObject({ status: 'enabled', consecutiveFailures: 0, lastSuccessAt: expect.any(String), lastFailureAt: expect.any(String) });
    const rows = await deliveriesOf(suite.database.pool, event.id);
    expect(rows.map((row) => [row.attempt, row.status, row.response_status])).toEqual([
      [1, 'failed', 503],
      [2, 'failed', 503],
      [3, 'succeeded', 200],
    ]);
    expect(rows[0]!.next_retry_at).toBeInstanceOf(Date);
    expect(rows[2]!.next_retry_at).toBeNull();
  });

  it('stops after the last attempt of the schedule', async () => {
    await createEndpoint('/down', { eventTypes: ['event.cancelled'] });
    suite.receiver.answer = (request) => (request.path === '/down' ? 500 : 200);
    const event = eventBody(organisationId, 'event.cancelled');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 4, 15_000, 'four attempts');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(suite.receiver.forEvent(event.id)).toHaveLength(4);
    const rows = await deliveriesOf(suite.database.pool, event.id);
    expect(rows.map((row) => row.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(rows[3]!.next_retry_at).toBeNull();
  });

  it('does not follow redirects and gives up on a receiver that does not answer in time', async () => {
    await createEndpoint('/moved', { eventTypes: ['event.sold_out'] });
    await createEndpoint('/slow', { eventTypes: ['event.sold_out'] });
    suite.receiver.answer = (request) => (request.path === '/moved' ? 302 : request.path === '/slow' ? 'hang' : 200);
    const event = eventBody(organisationId, 'event.sold_out');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await deliveriesOf(suite.database.pool, event.id)).filter((row) => row.attempt === 1 && row.status === 'failed').length >= 2, 15_000, 'both first attempts to fail');

    const failed = (await deliveriesOf(suite.database.pool, event.id)).filter((row) => row.attempt === 1);
    expect(failed.map((row) => row.error).sort()).toEqual(['answered 302; redirects are not followed', 'no answer within 1 s']);
    expect(suite.receiver.requests.filter((request) => request.path === '/redirected')).toHaveLength(0);
  });

  it('disables an endpoint after 50 consecutive failures and drops what it had scheduled', async () => {
    const endpoint = await createEndpoint('/dying', { eventTypes: ['waitlist.released'] });
    await suite.database.pool.query('UPDATE endpoints SET consecutive_failures = 49, failing_since = now() WHERE id = $1', [endpoint.id.toString()]);
    suite.receiver.answer = (request) => (request.path === '/dying' ? 500 : 200);
    const event = eventBody(organisationId, 'waitlist.released');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => !(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).enabled, 15_000, 'the endpoint to be disabled');

    expect(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).toMatchObject({ status: 'disabled', disabledReason: 'consecutive_failures', disabledAt: expect.any(String), consecutiveFailures: 50 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(suite.receiver.forEvent(event.id)).toHaveLength(1);
    expect((await deliveriesOf(suite.database.pool, event.id)).map((row) => row.status)).toEqual(['failed']);

    // Nothing reaches a disabled endpoint; PATCH enabled true starts it again with a clean slate.
    const missed = eventBody(organisationId, 'waitlist.released');
    await suite.producer.send(suite.service.topic, [missed.body]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(suite.receiver.forEvent(missed.id)).toHaveLength(0);
    const enabled = await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: true }, ctx);
    expect(enabled).toMatchObject({ status: 'enabled', enabled: true, consecutiveFailures: 0 });
    expect([enabled.disabledAt, enabled.disabledReason]).toEqual([undefined, undefined]);
  });

  it('records a burst of failures from two processes without a deadlock, and disables the endpoint once', async () => {
    const endpoint = await createEndpoint('/flooded', { eventTypes: ['event.updated'] });
    await suite.database.pool.query('UPDATE endpoints SET consecutive_failures = 20, failing_since = now() WHERE id = $1', [endpoint.id.toString()]);
    suite.receiver.answer = (request) => (request.path === '/flooded' ? 500 : 200);
    const deadlocks = async () => Number((await suite.database.pool.query<{ deadlocks: string }>('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.deadlocks);
    const before = await deadlocks();
    // A second process on the same database, as a second pod would run: both claim, both record failures of one endpoint.
    const second = await startService(suite.database.url, { KAFKA_TOPIC: suite.service.topic, WEBHOOK_TIMEOUT_MS: '1000' });
    try {
      const events = Array.from({ length: 200 }, () => eventBody(organisationId, 'event.updated'));
      await suite.producer.send(suite.service.topic, events.map((event) => event.body));
      await waitFor(async () => !(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).enabled, 20_000, 'the endpoint to be disabled');
      await waitFor(
        async () => (await suite.database.pool.query("SELECT 1 FROM deliveries WHERE endpoint_id = $1 AND status IN ('scheduled', 'sending')", [endpoint.id.toString()])).rowCount === 0,
        20_000,
        'nothing left to send',
      );
    } finally {
      await second.stop();
    }
    // pg_stat_database is updated by the stats collector at its own pace: give it a moment before reading.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await deadlocks()).toBe(before);
    expect(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).toMatchObject({ status: 'disabled', disabledReason: 'consecutive_failures' });
  }, 60_000);

  it('disables an endpoint failing for 3 days with at least 5 consecutive failures', async () => {
    const endpoint = await createEndpoint('/stale', { eventTypes: ['ticket.transferred'] });
    await suite.database.pool.query("UPDATE endpoints SET consecutive_failures = 4, failing_since = now() - interval '3 days 1 minute' WHERE id = $1", [endpoint.id.toString()]);
    suite.receiver.answer = (request) => (request.path === '/stale' ? 500 : 200);
    await suite.producer.send(suite.service.topic, [eventBody(organisationId, 'ticket.transferred').body]);
    await waitFor(async () => !(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).enabled, 15_000, 'the endpoint to be disabled');
    expect(await suite.service.client.getEndpoint({ id: endpoint.id }, ctx)).toMatchObject({ status: 'disabled', disabledReason: 'failing_for_3_days', consecutiveFailures: 5 });
  });

  it('pausing an endpoint cancels its scheduled retries', async () => {
    const endpoint = await createEndpoint('/paused', { eventTypes: ['ticket.issued'] });
    suite.receiver.answer = (request) => (request.path === '/paused' ? 500 : 200);
    const event = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 1, 15_000, 'the first attempt');
    const paused = await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: false }, ctx);
    expect(paused).toMatchObject({ enabled: false, status: 'disabled', disabledReason: 'paused', disabledAt: expect.any(String) });
    const sentWhenPaused = suite.receiver.forEvent(event.id).length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(suite.receiver.forEvent(event.id)).toHaveLength(sentWhenPaused);
    const statuses = (await deliveriesOf(suite.database.pool, event.id)).map((row) => row.status);
    expect(statuses).not.toContain('scheduled');
    expect(statuses).toContain('failed');
  });
});

describe('attempts the consumer sends itself (D373)', () => {
  it('hands a send still on the wire after its budget to a lease, and one still waiting for a slot to the claims: each sent once, nothing lost', async () => {
    // A process of its own with one slot: the first send holds it until the receiver's deadline, the others wait past the budget.
    const database = await scratchDatabase();
    const narrow = await startService(database.url, { WEBHOOK_CONCURRENCY: '1', WEBHOOK_ROUTED_SEND_BUDGET_MS: '250', WEBHOOK_TIMEOUT_MS: '1000' });
    try {
      await narrow.client.createEndpoint({ url: `${suite.receiver.url}/narrow`, eventTypes: [], mode: '' }, ctx);
      let answered = 0;
      suite.receiver.answer = () => (answered++ === 0 ? 'hang' : 200);
      const events = [eventBody(organisationId, 'event.updated'), eventBody(organisationId, 'event.updated'), eventBody(organisationId, 'event.updated')];
      await suite.producer.send(narrow.topic, events.map((event) => event.body));

      const statuses = async () => Promise.all(events.map(async (event) => (await deliveriesOf(database.pool, event.id)).map((row) => `${row.attempt}:${row.status}`)));
      await waitFor(async () => (await statuses()).every((rows) => rows.at(-1)?.endsWith('succeeded')), 15_000, 'every event delivered');

      const [hung, ...others] = (await statuses()).sort((a, b) => b.length - a.length);
      // The send that hung was written `sending` under the lease, then failed at the deadline and was retried.
      expect(hung).toEqual(['1:failed', '2:succeeded']);
      // The two that waited were withdrawn, written `scheduled` and sent by the claims once the slot was free: once each.
      expect(others).toEqual([['1:succeeded'], ['1:succeeded']]);
      const attemptsSent = events.map((event) => suite.receiver.forEvent(event.id).length).sort();
      expect(attemptsSent).toEqual([1, 1, 2]);
    } finally {
      await narrow.stop().catch(() => undefined);
      await database.drop();
    }
  }, 30_000);
});

describe('chunks of the consumer (D376)', () => {
  it('stores a partition’s events WEBHOOK_EVENTS_PER_CHUNK at a time, one statement each', async () => {
    // Five events waiting on a partition before the process starts, so its first fetch holds all five.
    const topic = `it.chunks.${randomBase62(8)}`;
    await ensureTopic(testKafka(), topic, 1);
    const events = Array.from({ length: 5 }, () => eventBody(organisationId, 'event.updated'));
    await suite.producer.send(topic, events.map((event) => event.body));
    const database = await scratchDatabase();
    const chunked = await startService(database.url, { KAFKA_TOPIC: topic, WEBHOOK_EVENTS_PER_CHUNK: '2' });
    try {
      // As PostgreSQL's text, to the microsecond: two statements can fall in one millisecond, which a Date would merge.
      const stored = async () => (await database.pool.query<{ received_at: string }>('SELECT received_at::text AS received_at FROM events')).rows;
      await waitFor(async () => (await stored()).length === 5, 15_000, 'the five events stored');
      // Rows written by one statement share its transaction's now().
      const sizes = new Map<string, number>();
      for (const row of await stored()) sizes.set(row.received_at, (sizes.get(row.received_at) ?? 0) + 1);
      expect([...sizes.values()].sort()).toEqual([1, 2, 2]);
    } finally {
      await chunked.stop().catch(() => undefined);
      await database.drop();
    }
  }, 30_000);
});

describe('shutting down', () => {
  it('writes the successes still waiting for their group before it stops', async () => {
    // A process of its own (database and topic), whose successes wait 5 s for company: longer than stopping takes.
    const database = await scratchDatabase();
    const lingering = await startService(database.url, { WEBHOOK_SUCCESS_LINGER_MS: '5000' });
    try {
      await lingering.client.createEndpoint({ url: `${suite.receiver.url}/lingering`, eventTypes: [], mode: '' }, ctx);
      const event = eventBody(organisationId, 'event.updated');
      await suite.producer.send(lingering.topic, [event.body]);
      await waitFor(async () => suite.receiver.requests.some((request) => request.path === '/lingering'), 10_000, 'the delivery');
      await lingering.stop();
      expect((await deliveriesOf(database.pool, event.id)).map((row) => row.status)).toEqual(['succeeded']);
    } finally {
      await lingering.stop().catch(() => undefined);
      await database.drop();
    }
  }, 30_000);
});

describe('secret rotation', () => {
  it('signs with the new and the old secret for 24 hours after a rotation', async () => {
    const endpoint = await createEndpoint('/rotated', { eventTypes: ['ticket_type.low_inventory'] });
    const rotated = await suite.service.client.rotateSecret({ id: endpoint.id }, ctx);
    expect(rotated.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(rotated.secret).not.toBe(endpoint.secret);

    const event = eventBody(organisationId, 'ticket_type.low_inventory');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(() => suite.receiver.forEvent(event.id).length >= 1, 15_000, 'the delivery');
    const [request] = suite.receiver.forEvent(event.id);
    const signature = String(request!.headers['service-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(signature, request!.body, rotated.secret!)).toBe(true);
    expect(verifySignature(signature, request!.body, endpoint.secret!)).toBe(true);

    // Once the overlap is over, only the new secret signs.
    await suite.database.pool.query("UPDATE endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1", [endpoint.id.toString()]);
    const later = eventBody(organisationId, 'ticket_type.low_inventory');
    await suite.producer.send(suite.service.topic, [later.body]);
    await waitFor(() => suite.receiver.forEvent(later.id).length >= 1, 15_000, 'the later delivery');
    const laterSignature = String(suite.receiver.forEvent(later.id)[0]!.headers['service-signature']);
    expect(laterSignature.split(',v1=')).toHaveLength(2);
    expect(verifySignature(laterSignature, suite.receiver.forEvent(later.id)[0]!.body, endpoint.secret!)).toBe(false);
  });
});
