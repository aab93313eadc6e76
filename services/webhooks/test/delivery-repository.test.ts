/**
 * The delivery queue's statements against PostgreSQL: who a stored event
 * fans out to, and what a claim takes (D363, D364).
 */
import { inTransaction } from '@partner-api/shared';
import { DeliveryRepository, type ReceivedEvent } from '../src/storage/delivery-repository';
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

/** Stores the events and fans them out as the consumer does: in one transaction. */
const storeAndFanOut = (events: ReceivedEvent[]) => inTransaction(database.pool, async (client) => repository.fanOut(client, await repository.storeEvents(client, events)));

const attempts = () =>
  database.pool
    .query<{ endpoint_id: string; event_id: string; status: string }>('SELECT endpoint_id, event_id, status FROM deliveries ORDER BY event_id, endpoint_id')
    .then((result) => result.rows);

describe('fan-out', () => {
  it('schedules attempt 1 for every enabled live endpoint of the event’s organisation subscribed to its type, and nothing else', async () => {
    const orders = await endpoint(1, ['order.completed']);
    const everything = await endpoint(1, ['*']);
    await endpoint(1, ['ticket.issued']);
    await endpoint(1, ['*'], { enabled: false });
    await endpoint(1, ['*'], { mode: 'test' });
    await endpoint(2, ['*']);
    const completed = received(1, 'order.completed');
    const issued = received(1, 'ticket.voided');
    const testMode = received(1, 'order.completed', false);

    expect(await storeAndFanOut([completed, issued, testMode])).toBe(3);
    expect(await attempts()).toEqual(
      [
        { endpoint_id: orders, event_id: completed.id, status: 'scheduled' },
        { endpoint_id: everything, event_id: completed.id, status: 'scheduled' },
        { endpoint_id: everything, event_id: issued.id, status: 'scheduled' },
      ].sort((a, b) => a.event_id.localeCompare(b.event_id) || Number(a.endpoint_id) - Number(b.endpoint_id)),
    );
  });

  it('fans an event out once when it comes twice in a chunk, and not again when it is read again', async () => {
    const only = await endpoint(1, ['*']);
    const event = received(1, 'order.completed');

    expect(await storeAndFanOut([event, { ...event }])).toBe(1);
    expect(await storeAndFanOut([event])).toBe(0);
    expect(await attempts()).toEqual([{ endpoint_id: only, event_id: event.id, status: 'scheduled' }]);
  });
});

describe('claims', () => {
  /** One attempt in each state a claim must tell apart; returns their event ids. */
  async function queue(): Promise<Record<'dueEarlier' | 'dueNow' | 'later' | 'lapsed' | 'inFlight' | 'done', string>> {
    await endpoint(1, ['*']);
    const names = ['dueEarlier', 'dueNow', 'later', 'lapsed', 'inFlight', 'done'] as const;
    const events = names.map(() => received(1, 'order.completed'));
    await storeAndFanOut(events);
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
    await storeAndFanOut([event]);
    await database.pool.query("UPDATE endpoints SET url = 'https://moved.example/hooks'");

    const [claimed] = await repository.claimDue(1, 30_000);

    expect(claimed).toMatchObject({ event_id: event.id, attempt: 1, url: 'https://moved.example/hooks', enabled: true, secret: 'whsec_test', payload: event.payload });
  });
});
