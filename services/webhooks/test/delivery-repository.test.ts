/**
 * The delivery queue's statements against PostgreSQL: where a stored event
 * is routed, how routed attempts are written (D373), and what a claim takes
 * (D363, D364).
 */
import { DeliveryRepository, type ReceivedEvent, type RoutedAttempt, type RoutedAttemptRow } from '../src/storage/delivery-repository';
import { scratchDatabase, type ScratchDatabase } from './support';

let database: ScratchDatabase;
let repository: DeliveryRepository;

beforeAll(async () => {
  database = await scratchDatabase();
  repository = new DeliveryRepository(database.pool);
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

beforeEach(async () => {
  await database.pool.query('TRUNCATE endpoints, events, deliveries CASCADE');
});

let sequence = 0;
const received = (organisationId: number, type: string, livemode = true): ReceivedEvent => ({
  id: `evt_repo_${(sequence += 1)}`,
  organisationId,
  type,
  livemode,
  createdAt: new Date(),
  payload: JSON.stringify({ type }),
  traceContext: {},
});

async function endpoint(organisationId: number, eventTypes: string[], options: { mode?: string; enabled?: boolean } = {}): Promise<string> {
  const { rows } = await database.pool.query<{ id: string }>(
    `INSERT INTO endpoints (organisation_id, url, event_types, mode, enabled, secret) VALUES ($1, 'https://receiver.example/hooks', $2, $3, $4, 'whsec_test') RETURNING id`,
    [organisationId, eventTypes, options.mode ?? 'live', options.enabled ?? true],
  );
  return rows[0]!.id;
}

/** Stores the events and writes the attempts they route `scheduled`, as the consumer does when it sends none itself. */
async function storeAndSchedule(events: ReceivedEvent[]): Promise<number> {
  const routes = await repository.storeAndRoute(events);
  return (await repository.writeRouted(database.pool, rows(routes, events), null)).size;
}

/** The rows of routed attempts, sent now. */
const rows = (routes: RoutedAttempt[], events: ReceivedEvent[], sentAt = new Date()): RoutedAttemptRow[] =>
  routes.map((route) => ({ endpoint_id: route.endpoint_id, event_id: route.event_id, event_type: events.find((event) => event.id === route.event_id)!.type, sent_at: sentAt }));

const attempts = () =>
  database.pool
    .query<{ endpoint_id: string; event_id: string; status: string }>('SELECT endpoint_id, event_id, status FROM deliveries ORDER BY event_id, endpoint_id')
    .then((result) => result.rows);

const byEventThenEndpoint = (a: { event_id: string; endpoint_id: string }, b: { event_id: string; endpoint_id: string }) =>
  a.event_id.localeCompare(b.event_id) || Number(a.endpoint_id) - Number(b.endpoint_id);

describe('routing', () => {
  it('stores every event and routes attempt 1 to every enabled live endpoint of its organisation subscribed to its type, and nowhere else', async () => {
    const orders = await endpoint(1, ['order.completed']);
    const everything = await endpoint(1, ['*']);
    await endpoint(1, ['ticket.issued']);
    await endpoint(1, ['*'], { enabled: false });
    await endpoint(1, ['*'], { mode: 'test' });
    await endpoint(2, ['*']);
    const completed = received(1, 'order.completed');
    const issued = received(1, 'ticket.voided');
    const testMode = received(1, 'order.completed', false);

    const routes = await repository.storeAndRoute([completed, issued, testMode]);

    expect(routes.map(({ endpoint_id, event_id }) => ({ endpoint_id, event_id })).sort(byEventThenEndpoint)).toEqual(
      [
        { endpoint_id: orders, event_id: completed.id },
        { endpoint_id: everything, event_id: completed.id },
        { endpoint_id: everything, event_id: issued.id },
      ].sort(byEventThenEndpoint),
    );
    expect(routes[0]).toMatchObject({ url: 'https://receiver.example/hooks', secret: 'whsec_test', previous_secret: null });
    const { rows: stored } = await database.pool.query<{ id: string }>('SELECT id FROM events ORDER BY id');
    expect(stored.map((row) => row.id)).toEqual([completed.id, issued.id, testMode.id].sort());
    expect(await attempts()).toEqual([]);
  });

  it('routes an event once when it comes twice in a chunk; read again, only where it has no attempt 1 yet', async () => {
    const first = await endpoint(1, ['*']);
    const event = received(1, 'order.completed');

    expect(await storeAndSchedule([event, { ...event }])).toBe(1);
    expect(await repository.storeAndRoute([event])).toEqual([]);
    // A consumer died after storing the event and before writing the attempt: read again, it is routed again.
    const second = await endpoint(1, ['*']);
    const unrecorded = received(1, 'order.completed');
    expect((await repository.storeAndRoute([unrecorded])).map((route) => route.endpoint_id).sort()).toEqual([first, second].sort());
    expect((await repository.storeAndRoute([unrecorded])).length).toBe(2);
    expect(await attempts()).toEqual([{ endpoint_id: first, event_id: event.id, status: 'scheduled' }]);
  });
});

describe('writing routed attempts', () => {
  it('writes them scheduled and due now, or sending under a lease; an attempt written already is left as it is', async () => {
    await endpoint(1, ['*']);
    const [scheduled, leased] = [received(1, 'order.completed'), received(1, 'order.completed')];
    const routes = await repository.storeAndRoute([scheduled, leased]);
    const sentAt = new Date(Date.now() - 40);

    const written = await repository.writeRouted(database.pool, rows(routes.filter((route) => route.event_id === scheduled.id), [scheduled]), null);
    const leasedIds = await repository.writeRouted(database.pool, rows(routes.filter((route) => route.event_id === leased.id), [leased], sentAt), 30_000);

    expect(written.size).toBe(1);
    expect(leasedIds.size).toBe(1);
    const { rows: states } = await database.pool.query<{ event_id: string; status: string; due_now: boolean; sent_at: Date | null; leased: boolean | null }>(
      "SELECT event_id, status, due_at <= now() AS due_now, sent_at, lease_until > now() + interval '20 seconds' AS leased FROM deliveries",
    );
    expect(states.find((row) => row.event_id === scheduled.id)).toMatchObject({ status: 'scheduled', due_now: true, sent_at: null, leased: null });
    expect(states.find((row) => row.event_id === leased.id)).toMatchObject({ status: 'sending', sent_at: sentAt, leased: true });
    expect((await repository.writeRouted(database.pool, rows(routes, [scheduled, leased]), 30_000)).size).toBe(0);
    expect((await attempts()).map((row) => row.status).sort()).toEqual(['scheduled', 'sending']);
  });

  it('records routed successes as one succeeded row each, ends the endpoint’s failure run, and leaves out an attempt written already or an endpoint deleted', async () => {
    const healthy = await endpoint(1, ['*']);
    const gone = await endpoint(2, ['*']);
    await database.pool.query('UPDATE endpoints SET consecutive_failures = 3, failing_since = now() WHERE id = $1', [healthy]);
    const [fresh, written, orphan] = [received(1, 'order.completed'), received(1, 'order.completed'), received(2, 'order.completed')];
    const routes = await repository.storeAndRoute([fresh, written, orphan]);
    await repository.writeRouted(database.pool, rows(routes.filter((route) => route.event_id === written.id), [written]), 30_000);
    await database.pool.query('DELETE FROM endpoints WHERE id = $1', [gone]);
    const sentAt = new Date(Date.now() - 25);

    await repository.recordRoutedSuccesses(rows(routes, [fresh, written, orphan], sentAt).map((row) => ({ ...row, responseStatus: 204, durationMs: 25 })));

    const { rows: recorded } = await database.pool.query<{ event_id: string; status: string; attempt: number; response_status: number | null; duration_ms: number; sent_at: Date }>(
      'SELECT event_id, status, attempt, response_status, duration_ms, sent_at FROM deliveries',
    );
    expect(recorded).toHaveLength(2);
    expect(recorded.find((row) => row.event_id === fresh.id)).toEqual({ event_id: fresh.id, status: 'succeeded', attempt: 1, response_status: 204, duration_ms: 25, sent_at: sentAt });
    expect(recorded.find((row) => row.event_id === written.id)).toMatchObject({ status: 'sending', response_status: null });
    const { rows: health } = await database.pool.query<{ consecutive_failures: number; failing_since: Date | null }>('SELECT consecutive_failures, failing_since FROM endpoints WHERE id = $1', [healthy]);
    expect(health[0]).toEqual({ consecutive_failures: 0, failing_since: null });
  });
});

describe('claims', () => {
  /** One attempt in each state a claim must tell apart; returns their event ids. */
  async function queue(): Promise<Record<'dueEarlier' | 'dueNow' | 'later' | 'lapsed' | 'inFlight' | 'done', string>> {
    await endpoint(1, ['*']);
    const names = ['dueEarlier', 'dueNow', 'later', 'lapsed', 'inFlight', 'done'] as const;
    const events = names.map(() => received(1, 'order.completed'));
    await storeAndSchedule(events);
    const set = (index: number, assignments: string) => database.pool.query(`UPDATE deliveries SET ${assignments} WHERE event_id = $1`, [events[index]!.id]);
    await set(0, "due_at = now() - interval '1 minute'");
    await set(2, "due_at = now() + interval '1 hour'");
    await set(3, "status = 'sending', lease_until = now() - interval '1 second'");
    await set(4, "status = 'sending', lease_until = now() + interval '1 minute'");
    await set(5, "status = 'succeeded'");
    return Object.fromEntries(names.map((name, index) => [name, events[index]!.id])) as never;
  }

  it('takes what is due, oldest first, then attempts whose lease ran out; never what is due later, in flight or finished', async () => {
    const ids = await queue();

    const claimed = await repository.claimDue(10, 30_000);

    expect(claimed.map((delivery) => delivery.event_id).sort()).toEqual([ids.dueEarlier, ids.dueNow, ids.lapsed].sort());
    const { rows } = await database.pool.query<{ event_id: string; status: string; leased: boolean }>(
      "SELECT event_id, status, lease_until > now() + interval '20 seconds' AS leased FROM deliveries WHERE event_id = ANY ($1)",
      [[ids.dueEarlier, ids.dueNow, ids.lapsed]],
    );
    expect(rows.every((row) => row.status === 'sending' && row.leased)).toBe(true);
    expect(await repository.claimDue(10, 30_000)).toEqual([]);
  });

  it('takes no more than its limit, due attempts before lapsed ones', async () => {
    const ids = await queue();

    const take = async (limit: number) => (await repository.claimDue(limit, 30_000)).map((delivery) => delivery.event_id);

    expect(await take(1)).toEqual([ids.dueEarlier]);
    expect(await take(1)).toEqual([ids.dueNow]);
    expect(await take(5)).toEqual([ids.lapsed]);
    expect(await take(5)).toEqual([]);
  });

  it('carries what the send needs: the endpoint as it is now and the event’s exact bytes', async () => {
    await endpoint(1, ['*']);
    const event = received(1, 'order.completed');
    await storeAndSchedule([event]);
    await database.pool.query("UPDATE endpoints SET url = 'https://moved.example/hooks'");

    const [claimed] = await repository.claimDue(1, 30_000);

    expect(claimed).toMatchObject({ event_id: event.id, attempt: 1, url: 'https://moved.example/hooks', enabled: true, secret: 'whsec_test', payload: event.payload });
  });
});
