/**
 * New holds recorded in batches: the holds of one tick share one INSERT, each
 * caller learns whether its own row was written, and a row PostgreSQL refuses
 * fails only its own hold.
 */
import { randomBase62 } from '@partner-api/shared';
import { HoldRecords, type NewHold } from '../src/storage/hold-records';
import { countingPool } from '../../shared/test/support';

const organisationId = 535_500 + Math.floor(Math.random() * 99);
let pool: ReturnType<typeof countingPool>;
let records: HoldRecords;
let eventId: string;

beforeAll(async () => {
  pool = countingPool('inventory');
  records = new HoldRecords(pool as never);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO events (organisation_id, slug, title, status, starts_at, timezone) VALUES ($1, $2, 'Hold records', 'draft', now() + interval '30 days', 'UTC') RETURNING id`,
    [organisationId, `records-${randomBase62(8).toLowerCase()}`],
  );
  eventId = rows[0]!.id;
});
afterAll(() => pool.end());

const hold = (id = randomBase62(16), overrides: Partial<NewHold> = {}): NewHold => ({
  id, organisationId, eventId, pools: [{ pool_id: '1', quantity: 2 }], expiresAt: new Date(Date.now() + 60_000), ...overrides,
});
const state = async (ids: string[]) =>
  (await pool.query<{ id: string; state: string }>('SELECT id, state FROM holds WHERE id = ANY($1)', [ids])).rows.map((row) => `${row.id}:${row.state}`).sort();

it('writes the holds of one tick in one statement, each caller told its own outcome', async () => {
  const holds = Array.from({ length: 50 }, () => hold());
  const before = pool.statements;
  expect(await Promise.all(holds.map((one) => records.record(one)))).toEqual(holds.map(() => true));
  expect(pool.statements - before).toBe(1);
  expect(await state(holds.map((one) => one.id))).toEqual(holds.map((one) => `${one.id}:held`).sort());
});

it('answers false for an id already recorded, and true to only the first of one id twice in a tick', async () => {
  const existing = hold();
  expect(await records.record(existing)).toBe(true);
  const twice = randomBase62(16);
  expect(await Promise.all([records.record(existing), records.record(hold(twice)), records.record(hold(twice))])).toEqual([false, true, false]);
});

it('fails only the hold whose row PostgreSQL refuses', async () => {
  const good = [hold(), hold()];
  const bad = hold(undefined, { eventId: '999999999999' }); // no such event: the foreign key refuses it
  const outcomes = await Promise.allSettled([records.record(good[0]!), records.record(bad), records.record(good[1]!)]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23503' });
  expect(await state([...good, bad].map((one) => one.id))).toEqual(good.map((one) => `${one.id}:held`).sort());
});
