/**
 * The organiser dashboard's calls inside the webhooks service, on real
 * PostgreSQL and Kafka with receivers on loopback: endpoint health and its
 * 24-hour figures, the delivery log by endpoint and by event, resend,
 * recover, and the disable notices the dashboard emails from (written with
 * the disable, claimed with a lease, claimed again when a claimer does not
 * complete).
 */
import { eventBody, liveContext, refusal, deliverySuite, testContext, waitFor } from './support';

const organisationId = 850_000 + Math.floor(Math.random() * 9_999);
const live = liveContext(organisationId);
const suite = deliverySuite({ WEBHOOK_TIMEOUT_MS: '1000' }, ['endpoints', 'disable_notices']);

const createEndpoint = (path: string, eventTypes: string[], ctx = live) => suite.service.client.createEndpoint({ url: `${suite.receiver.url}${path}`, eventTypes, mode: '' }, ctx);

const attempts = async (request: { endpointId?: bigint; eventId?: string; status?: string }, ctx = live) =>
  (await suite.service.client.listDeliveryAttempts({ ...request, page: { limit: 100, after: '' } }, ctx)).data;

/** The endpoint's failed attempts recorded so far. */
const failedCount = async (endpointId: bigint) =>
  (await suite.database.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE endpoint_id = $1 AND status = 'failed'", [endpointId.toString()])).rows[0]!.n;

/** Finished attempts of an endpoint written straight into the log: `durations` ms each, sent `hoursAgo`. */
async function recordAttempts(endpointId: bigint, rows: { durationMs: number; succeeded: boolean; hoursAgo: number; manual?: boolean }[]) {
  for (const [index, row] of rows.entries()) {
    await suite.database.pool.query(
      `INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, manual, status, due_at, sent_at, duration_ms, response_status)
       VALUES ($1, $2, 'order.completed', 1, $3, $4, now(), now() - $5 * interval '1 hour', $6, $7)`,
      [endpointId.toString(), `evt_recorded${index}`, row.manual ?? false, row.succeeded ? 'succeeded' : 'failed', row.hoursAgo, row.durationMs, row.succeeded ? 200 : 500],
    );
  }
}

describe('endpoint health', () => {
  it('reports the failure run against the rules and the last 24 hours of attempts, p95 from SQL', async () => {
    const endpoint = await createEndpoint('/health', ['order.completed']);
    // 20 attempts of 10, 20, … 200 ms in the window (the last five failed), one a day old, a test send and one still waiting.
    await recordAttempts(endpoint.id, [
      ...Array.from({ length: 20 }, (_, i) => ({ durationMs: (i + 1) * 10, succeeded: i < 15, hoursAgo: 1 })),
      { durationMs: 9_000, succeeded: false, hoursAgo: 25 },
      { durationMs: 9_000, succeeded: false, hoursAgo: 1, manual: true },
    ]);
    await suite.database.pool.query("INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at) VALUES ($1, 'evt_waiting', 'order.completed', 1, 'scheduled', now() + interval '1 hour')", [endpoint.id.toString()]);
    const failingSince = new Date(Math.floor(Date.now() / 1000) * 1000 - 26 * 3_600_000);
    await suite.database.pool.query('UPDATE endpoints SET consecutive_failures = 7, failing_since = $2, last_failure_at = now() WHERE id = $1', [endpoint.id.toString(), failingSince]);

    const health = await suite.service.client.getEndpointHealth({ id: endpoint.id }, live);
    expect(health).toMatchObject({
      endpointId: endpoint.id,
      status: 'failing',
      enabled: true,
      consecutiveFailures: 7,
      consecutiveFailureLimit: 50,
      failingSince: failingSince.toISOString().replace('.000Z', 'Z'),
      disablesAt: new Date(failingSince.getTime() + 72 * 3_600_000).toISOString().replace('.000Z', 'Z'),
      lastFailureAt: expect.any(String),
      recent: { attempts: 20, succeeded: 15, successRate: 0.75, p95DurationMs: 190, since: expect.any(String) },
    });
    expect([health.disabledAt, health.disabledReason, health.lastSuccessAt]).toEqual([undefined, undefined, undefined]);
  });

  it('has no rate and no p95 without attempts, and counts real deliveries by the time they were sent', async () => {
    const endpoint = await createEndpoint('/quiet', ['ticket.issued']);
    const quiet = (await suite.service.client.getEndpointHealth({ id: endpoint.id }, live)).recent!;
    // Unset optional fields are absent from the message: no rate and no p95.
    expect([quiet.attempts, quiet.succeeded, quiet.successRate, quiet.p95DurationMs]).toEqual([0, 0, undefined, undefined]);

    const event = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await suite.service.client.getEndpointHealth({ id: endpoint.id }, live)).recent?.succeeded === 1, 15_000, 'the delivery counted');
    const health = await suite.service.client.getEndpointHealth({ id: endpoint.id }, live);
    expect(health).toMatchObject({ status: 'enabled', lastSuccessAt: expect.any(String), recent: { attempts: 1, successRate: 1, p95DurationMs: expect.any(Number) } });
    expect(health.disablesAt).toBeUndefined();
  });

  it('is cleared by re-enabling, except the 24-hour history', async () => {
    const endpoint = await createEndpoint('/revived', ['order.completed']);
    await recordAttempts(endpoint.id, [{ durationMs: 50, succeeded: false, hoursAgo: 1 }]);
    await suite.database.pool.query(
      "UPDATE endpoints SET enabled = false, consecutive_failures = 50, failing_since = now() - interval '1 day', disabled_at = now(), disabled_reason = 'consecutive_failures' WHERE id = $1",
      [endpoint.id.toString()],
    );
    const disabled = await suite.service.client.getEndpointHealth({ id: endpoint.id }, live);
    expect(disabled.disablesAt).toBeUndefined();
    expect(disabled).toMatchObject({
      status: 'disabled',
      consecutiveFailures: 50,
      disabledAt: expect.any(String),
      disabledReason: 'consecutive_failures',
    });

    await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: true, eventTypes: [], setEventTypes: false }, live);
    const health = await suite.service.client.getEndpointHealth({ id: endpoint.id }, live);
    expect(health).toMatchObject({ status: 'enabled', enabled: true, consecutiveFailures: 0, recent: { attempts: 1, succeeded: 0, successRate: 0 } });
    expect([health.failingSince, health.disablesAt, health.disabledAt, health.disabledReason]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('is missing for another organisation’s endpoint and for a test key on a live one', async () => {
    const endpoint = await createEndpoint('/mine', ['order.completed']);
    expect(await refusal(suite.service.client.getEndpointHealth({ id: endpoint.id }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(suite.service.client.getEndpointHealth({ id: endpoint.id }, testContext(organisationId)))).toMatchObject({ code: 'resource_missing' });
  });
});

describe('the dashboard’s delivery log', () => {
  it('lists one event’s attempts across the caller’s endpoints, and one endpoint’s, with send times and origins', async () => {
    const first = await createEndpoint('/log-a', ['order.refunded']);
    const second = await createEndpoint('/log-b', ['order.refunded']);
    const event = eventBody(organisationId, 'order.refunded');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await attempts({ eventId: event.id, status: 'succeeded' })).length === 2, 15_000, 'both delivered');
    await suite.service.client.sendTestEvent({ id: first.id }, live);

    const byEvent = await attempts({ eventId: event.id });
    expect(byEvent.map((row) => row.delivery?.endpointUrl).sort()).toEqual([`${suite.receiver.url}/log-a`, `${suite.receiver.url}/log-b`]);
    for (const row of byEvent) expect(row).toMatchObject({ origin: 'event', retry: false, sentAt: expect.any(String), dueAt: expect.any(String), delivery: { attempt: 1, status: 'succeeded', responseStatus: 200 } });

    const byEndpoint = await attempts({ endpointId: first.id });
    expect(byEndpoint.map((row) => [row.origin, row.delivery?.manual])).toEqual([
      ['test', true],
      ['event', false],
    ]);
    expect(byEndpoint[0]!.sentAt).toEqual(expect.any(String));
    expect(await attempts({ endpointId: second.id, eventId: event.id })).toHaveLength(1);
    // The API's log is as it was: the same rows, without the dashboard's fields.
    const api = await suite.service.client.listDeliveries({ id: first.id, page: { limit: 100, after: '' } }, live);
    expect(api.data.map((delivery) => delivery.id)).toEqual(byEndpoint.map((row) => row.delivery?.id));
  });

  it('pages newest first, needs an endpoint or an event, and keeps to the caller’s organisation and mode', async () => {
    const endpoint = await createEndpoint('/log-paged', ['ticket.checked_in']);
    const events = [eventBody(organisationId, 'ticket.checked_in'), eventBody(organisationId, 'ticket.checked_in'), eventBody(organisationId, 'ticket.checked_in')];
    await suite.producer.send(suite.service.topic, events.map((e) => e.body));
    await waitFor(async () => (await attempts({ endpointId: endpoint.id, status: 'succeeded' })).length === 3, 15_000, 'three deliveries');
    const first = await suite.service.client.listDeliveryAttempts({ endpointId: endpoint.id, page: { limit: 2, after: '' } }, live);
    const second = await suite.service.client.listDeliveryAttempts({ endpointId: endpoint.id, page: { limit: 2, after: first.pageInfo!.nextAfter } }, live);
    const ids = [...first.data, ...second.data].map((row) => row.delivery!.id);
    expect([first.pageInfo?.hasMore, second.pageInfo?.hasMore]).toEqual([true, false]);
    expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);

    expect(await refusal(attempts({}))).toMatchObject({ code: 'parameter_missing', param: 'endpoint_id' });
    expect(await refusal(attempts({ endpointId: endpoint.id, status: 'lost' }))).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    expect(await refusal(attempts({ endpointId: endpoint.id }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(attempts({ endpointId: endpoint.id }, testContext(organisationId)))).toMatchObject({ code: 'resource_missing' });
    // Another organisation, or a test key, asking by event id sees none of these attempts.
    expect(await attempts({ eventId: events[0]!.id }, liveContext(organisationId + 1))).toEqual([]);
    expect(await attempts({ eventId: events[0]!.id }, testContext(organisationId))).toEqual([]);
  });
});

describe('resend', () => {
  it('sends the event again now, continuing the attempt count, and retries a failed resend by the schedule', async () => {
    const endpoint = await createEndpoint('/resend', ['event.cancelled']);
    suite.receiver.answer = (request) => (request.path === '/resend' ? 500 : 200);
    const event = eventBody(organisationId, 'event.cancelled');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await failedCount(endpoint.id)) === 4, 15_000, 'four failed attempts');
    const [last] = await attempts({ endpointId: endpoint.id, eventId: event.id });

    suite.receiver.answer = () => 200;
    const resent = await suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: last!.delivery!.id }, live);
    expect(resent).toMatchObject({ origin: 'resend', retry: false, delivery: { attempt: 5, eventId: event.id, status: 'pending', endpointId: endpoint.id } });
    await waitFor(() => suite.receiver.forEvent(event.id).length === 5, 15_000, 'the resend');
    expect(suite.receiver.forEvent(event.id).at(-1)!.headers['service-delivery-attempt']).toBe('5');

    // A delivered event can be resent too; a resend that fails gets the schedule's retries, each marked as the resend's.
    await waitFor(async () => (await attempts({ endpointId: endpoint.id, status: 'succeeded' })).length === 1, 5_000, 'the resend recorded');
    suite.receiver.answer = (request) => (request.path === '/resend' ? 503 : 200);
    const [succeeded] = await attempts({ endpointId: endpoint.id, status: 'succeeded' });
    expect((await suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: succeeded!.delivery!.id }, live)).delivery?.attempt).toBe(6);
    await waitFor(async () => (await failedCount(endpoint.id)) === 8, 15_000, 'the resend and its three retries');
    expect(suite.receiver.forEvent(event.id).map((request) => request.headers['service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const round = (await attempts({ endpointId: endpoint.id, eventId: event.id })).slice(0, 4);
    expect(round.map((row) => [row.delivery?.attempt, row.origin, row.retry])).toEqual([
      [9, 'resend', true],
      [8, 'resend', true],
      [7, 'resend', true],
      [6, 'resend', false],
    ]);
  }, 45_000);

  it('brings forward an attempt already on its way instead of adding one, so quick clicks send once', async () => {
    const endpoint = await createEndpoint('/waiting', ['ticket.issued']);
    suite.receiver.answer = (request) => (request.path === '/waiting' ? 500 : 200);
    const event = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await failedCount(endpoint.id)) === 4, 15_000, 'four failed attempts');
    // A retry due in an hour, as the real schedule leaves one.
    const { rows } = await suite.database.pool.query<{ id: string }>(
      "INSERT INTO deliveries (endpoint_id, event_id, event_type, attempt, status, due_at) VALUES ($1, $2, 'ticket.issued', 5, 'scheduled', now() + interval '1 hour') RETURNING id",
      [endpoint.id.toString(), event.id],
    );
    suite.receiver.answer = () => 200;
    const [one, two] = await Promise.all([
      suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: BigInt(rows[0]!.id) }, live),
      suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: BigInt(rows[0]!.id) }, live),
    ]);
    expect([one.delivery?.id, two.delivery?.id]).toEqual([BigInt(rows[0]!.id), BigInt(rows[0]!.id)]);
    await waitFor(() => suite.receiver.forEvent(event.id).length === 5, 15_000, 'the retry sent now');
    await new Promise((resolve) => setTimeout(resolve, 400)); // nothing else may follow
    expect(suite.receiver.forEvent(event.id)).toHaveLength(5);
    expect(suite.receiver.forEvent(event.id).at(-1)!.headers['service-delivery-attempt']).toBe('5');
  }, 30_000);

  it('refuses a disabled endpoint, a test send, and another endpoint’s or organisation’s delivery', async () => {
    const endpoint = await createEndpoint('/refused', ['order.completed']);
    const other = await createEndpoint('/other', ['order.completed']);
    const event = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [event.body]);
    await waitFor(async () => (await attempts({ eventId: event.id, status: 'succeeded' })).length === 2, 15_000, 'both delivered');
    const [delivery] = await attempts({ endpointId: endpoint.id });
    const test = await suite.service.client.sendTestEvent({ id: endpoint.id }, live);

    expect(await refusal(suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: test.id }, live))).toMatchObject({ code: 'parameter_invalid', param: 'delivery_id' });
    expect(await refusal(suite.service.client.resendDelivery({ endpointId: other.id, deliveryId: delivery!.delivery!.id }, live))).toMatchObject({ code: 'resource_missing', param: 'delivery_id' });
    expect(await refusal(suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: delivery!.delivery!.id }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: delivery!.delivery!.id }, testContext(organisationId)))).toMatchObject({ code: 'resource_missing' });

    await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: false, eventTypes: [], setEventTypes: false }, live);
    const disabled = await refusal(suite.service.client.resendDelivery({ endpointId: endpoint.id, deliveryId: delivery!.delivery!.id }, live));
    expect(disabled).toMatchObject({ code: 'endpoint_disabled', param: 'endpoint_id', message: expect.stringContaining('re-enable') });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.receiver.forEvent(event.id)).toHaveLength(2);
  });
});

describe('recover', () => {
  it('queues every subscribed event since the time that failed or was never sent while paused, as a replay', async () => {
    const endpoint = await createEndpoint('/recover', ['order.completed', 'order.refunded']);
    const delivered = eventBody(organisationId, 'order.completed');
    await suite.producer.send(suite.service.topic, [delivered.body]);
    await waitFor(() => suite.receiver.forEvent(delivered.id).length === 1, 15_000, 'delivered');

    suite.receiver.answer = (request) => (request.path === '/recover' ? 500 : 200);
    const failed = eventBody(organisationId, 'order.refunded');
    await suite.producer.send(suite.service.topic, [failed.body]);
    await waitFor(async () => (await failedCount(endpoint.id)) === 4, 15_000, 'four failed attempts');

    await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: false, eventTypes: [], setEventTypes: false }, live);
    const missed = eventBody(organisationId, 'order.completed');
    const unsubscribed = eventBody(organisationId, 'ticket.issued');
    await suite.producer.send(suite.service.topic, [missed.body, unsubscribed.body]);
    await waitFor(async () => (await suite.database.pool.query('SELECT 1 FROM events WHERE id = ANY ($1)', [[missed.id, unsubscribed.id]])).rowCount === 2, 15_000, 'stored');
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect(await refusal(suite.service.client.recoverEndpoint({ endpointId: endpoint.id, since }, live))).toMatchObject({ code: 'endpoint_disabled' });

    await suite.service.client.updateEndpoint({ id: endpoint.id, enabled: true, eventTypes: [], setEventTypes: false }, live);
    suite.receiver.answer = () => 200;
    const recovered = await suite.service.client.recoverEndpoint({ endpointId: endpoint.id, since }, live);
    expect(recovered).toMatchObject({ object: 'webhook_replay', endpointId: endpoint.id, queued: 2 });
    await waitFor(() => suite.receiver.forEvent(failed.id).length === 5 && suite.receiver.forEvent(missed.id).length === 1, 15_000, 'both sent');
    expect(suite.receiver.forEvent(failed.id).at(-1)!.headers['service-delivery-attempt']).toBe('5');
    expect(suite.receiver.forEvent(missed.id)[0]!.headers['service-delivery-attempt']).toBe('1');
    expect(suite.receiver.forEvent(delivered.id)).toHaveLength(1);
    expect(suite.receiver.forEvent(unsubscribed.id)).toHaveLength(0);
    const queued = (await attempts({ endpointId: endpoint.id })).filter((row) => row.origin === 'replay');
    expect(queued.map((row) => row.delivery?.replayId)).toEqual([recovered.id, recovered.id]);

    // Nothing is missing any more; another organisation's call finds no endpoint; `since` is checked as a replay's.
    expect((await suite.service.client.recoverEndpoint({ endpointId: endpoint.id, since }, live)).queued).toBe(0);
    expect(await refusal(suite.service.client.recoverEndpoint({ endpointId: endpoint.id, since }, liveContext(organisationId + 1)))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(suite.service.client.recoverEndpoint({ endpointId: endpoint.id, since: 'soon' }, live))).toMatchObject({ code: 'parameter_invalid', param: 'since' });
  }, 45_000);
});

describe('disable notices', () => {
  const notices = () => suite.database.pool.query('SELECT * FROM disable_notices ORDER BY id').then((result) => result.rows);
  const claim = (limit: number, leaseSeconds: number, ctx = live) => suite.service.client.claimDisableNotices({ limit, leaseSeconds }, ctx).then((answer) => answer.data);

  it('writes exactly one notice when the health rules disable an endpoint, and none for a pause', async () => {
    const endpoint = await createEndpoint('/dying', ['waitlist.released']);
    const paused = await createEndpoint('/paused', ['waitlist.released']);
    await suite.service.client.updateEndpoint({ id: paused.id, enabled: false, eventTypes: [], setEventTypes: false }, live);
    await suite.database.pool.query('UPDATE endpoints SET consecutive_failures = 48, failing_since = now() WHERE id = $1', [endpoint.id.toString()]);
    suite.receiver.answer = (request) => (request.path === '/dying' ? 500 : 200);
    // Three events: the second failure disables it, the third attempt is cancelled or fails after it.
    await suite.producer.send(suite.service.topic, [1, 2, 3].map(() => eventBody(organisationId, 'waitlist.released').body));
    await waitFor(async () => !(await suite.service.client.getEndpoint({ id: endpoint.id }, live)).enabled, 15_000, 'the endpoint to be disabled');
    await new Promise((resolve) => setTimeout(resolve, 500));

    const disabled = await suite.service.client.getEndpoint({ id: endpoint.id }, live);
    expect(await notices()).toEqual([
      expect.objectContaining({
        organisation_id: String(organisationId),
        endpoint_id: endpoint.id.toString(),
        endpoint_url: `${suite.receiver.url}/dying`,
        mode: 'live',
        reason: 'consecutive_failures',
        sent_at: null,
        claimed_until: null,
      }),
    ]);
    expect((await notices())[0].disabled_at.toISOString().replace(/\.\d{3}Z$/, 'Z')).toBe(disabled.disabledAt);
  });

  it('is claimed across organisations with a lease, completed once, and claimed again when its claimer never completes', async () => {
    await suite.database.pool.query(
      `INSERT INTO disable_notices (organisation_id, endpoint_id, endpoint_url, mode, reason, disabled_at)
       VALUES ($1, 1, 'https://a.example/hooks', 'live', 'consecutive_failures', now()), ($2, 2, 'https://b.example/hooks', 'live', 'failing_for_3_days', now())`,
      [organisationId, organisationId + 1],
    );
    // Any organisation's context claims every organisation's notices.
    const claimed = await claim(10, 60, liveContext(organisationId + 7));
    expect(claimed.map((notice) => [Number(notice.organisationId), notice.reason, notice.claims])).toEqual([
      [organisationId, 'consecutive_failures', 1],
      [organisationId + 1, 'failing_for_3_days', 1],
    ]);
    expect(claimed[0]!.claimedUntil).toEqual(expect.any(String));
    expect(await claim(10, 60)).toEqual([]); // leased

    const sent = await suite.service.client.completeDisableNotice({ id: claimed[0]!.id }, live);
    expect(sent).toMatchObject({ id: claimed[0]!.id, sentAt: expect.any(String) });
    expect(sent.claimedUntil).toBeUndefined();
    expect((await suite.service.client.completeDisableNotice({ id: claimed[0]!.id }, live)).sentAt).toBe(sent.sentAt);

    // The second claimer died: once its lease has run out, the notice is claimed again, and only that one.
    await suite.database.pool.query("UPDATE disable_notices SET claimed_until = now() - interval '1 second' WHERE id = $1", [claimed[1]!.id.toString()]);
    const again = await claim(10, 60);
    expect(again.map((notice) => [notice.id, notice.claims])).toEqual([[claimed[1]!.id, 2]]);
    await suite.service.client.completeDisableNotice({ id: again[0]!.id }, live);
    await suite.database.pool.query('UPDATE disable_notices SET claimed_until = NULL');
    expect(await claim(10, 60)).toEqual([]);

    expect(await refusal(suite.service.client.completeDisableNotice({ id: 999_999n }, live))).toMatchObject({ code: 'resource_missing' });
    expect(await refusal(claim(101, 60))).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('gives two claimers at once different notices', async () => {
    await suite.database.pool.query(
      `INSERT INTO disable_notices (organisation_id, endpoint_id, endpoint_url, mode, reason, disabled_at)
       SELECT $1, n, 'https://a.example/hooks', 'live', 'consecutive_failures', now() FROM generate_series(1, 6) n`,
      [organisationId],
    );
    const [one, two] = await Promise.all([claim(3, 60), claim(3, 60)]);
    const ids = [...one, ...two].map((notice) => notice.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });
});
