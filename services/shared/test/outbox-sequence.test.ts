/**
 * `ordering.sequence` in the outbox (D264–D266): assigned per object in the
 * emitting transaction, counting 1, 2, 3 for one object whatever other
 * objects do, never repeated by concurrent writers, and given back by a
 * transaction that rolls back.
 */
import type { Pool } from 'pg';
import { buildEvent } from '../src/events';
import { appendToOutbox } from '../src/outbox';
import { inTransaction } from '../src/db';
import { createScratchSchema } from './support';

let scratch: Awaited<ReturnType<typeof createScratchSchema>>;
let pool: Pool;

beforeAll(async () => {
  scratch = await createScratchSchema();
  pool = scratch.pool;
}, 60_000);

afterAll(async () => {
  await scratch.drop();
});

const ticket = (id: number) => ({ object: 'ticket', id, updated_at: '2026-11-25T08:00:00Z' });

async function write(id: number, hold?: () => Promise<void>): Promise<string> {
  const event = buildEvent('ticket.checked_in', { organisationId: 1, livemode: true }, ticket(id));
  await inTransaction(pool, async (client) => {
    await appendToOutbox(client, event, `ticket:${id}`);
    await hold?.();
  });
  return event.id;
}

const orderings = async (key: string) =>
  (await pool.query<{ event_id: string; ordering: { key: string; sequence: number; updated_at: string } }>("SELECT event_id, payload->'ordering' AS ordering FROM outbox WHERE partition_key = $1 ORDER BY id", [key])).rows;

describe('per-object sequences in the outbox', () => {
  it('count up per object, after data in the body, with the object updated_at', async () => {
    await write(1);
    await write(2);
    await write(1);
    await write(1);
    expect((await orderings('ticket:1')).map((row) => row.ordering)).toEqual([1, 2, 3].map((sequence) => ({ key: 'ticket:1', sequence, updated_at: '2026-11-25T08:00:00Z' })));
    expect((await orderings('ticket:2')).map((row) => row.ordering.sequence)).toEqual([1]);
    const { rows } = await pool.query<{ payload: string }>("SELECT payload::text AS payload FROM outbox WHERE partition_key = 'ticket:2'");
    expect(Object.keys(JSON.parse(rows[0]!.payload))).toEqual(['id', 'object', 'type', 'api_version', 'created', 'livemode', 'organisation_id', 'data', 'ordering']);
  });

  it('give concurrent writers of one object distinct values, increasing in commit order', async () => {
    const committed: string[] = [];
    // Each writer keeps its transaction open a while after taking its number, so they overlap.
    const ids = await Promise.all(
      Array.from({ length: 12 }, () =>
        write(3, async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }).then((id) => {
          committed.push(id);
          return id;
        }),
      ),
    );
    const rows = await orderings('ticket:3');
    const sequenceOf = new Map(rows.map((row) => [row.event_id, row.ordering.sequence]));
    expect([...sequenceOf.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(ids.every((id) => sequenceOf.has(id))).toBe(true);
    // The order in which the writers' commits returned is the order of their numbers.
    expect(committed.map((id) => sequenceOf.get(id))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('hands back the number of a transaction that rolls back', async () => {
    await write(4);
    await expect(
      write(4, async () => {
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    await write(4);
    expect((await orderings('ticket:4')).map((row) => row.ordering.sequence)).toEqual([1, 2]);
  });
});
