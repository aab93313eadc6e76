/**
 * Checkout sessions' pending claims and openings are written in batches: the
 * claims of one tick share one statement, a claim racing an earlier one of
 * the same id still sees it (retried), and an opening finds only sessions
 * still pending.
 */
import { randomUUID } from 'node:crypto';
import { CheckoutRepository, type SessionRow } from '../src/storage/checkout-repository';
import { countingPool } from '../../shared/test/support';

const organisationId = 536_000 + Math.floor(Math.random() * 99);
let pool: ReturnType<typeof countingPool>;
let sessions: CheckoutRepository;

beforeAll(() => {
  pool = countingPool('orders');
  sessions = new CheckoutRepository(pool as never);
});
afterAll(() => pool.end());

const opening = (id: string): Omit<SessionRow, 'status' | 'order_id' | 'paid_at' | 'created_at'> => ({
  id, organisation_id: String(organisationId), event_id: '42', coupon_id: null, customer: { email: 'fan@example.com', first_name: null, last_name: null, phone: null },
  items: [{ ticket_type_id: '7', pool_id: '3', name: 'GA', quantity: 1, unit_price: '10.00', total: '10.00' }],
  subtotal_cents: '1000', total_fees_cents: '100', discount_cents: '0', total_cents: '1000', metadata: { order: 'x' }, expires_at: new Date(Date.now() + 900_000),
  sales_channel: 'api', channel_origin: null,
});

it('claims the sessions of one tick in one statement', async () => {
  const ids = Array.from({ length: 30 }, () => randomUUID());
  const before = pool.statements;
  expect(await Promise.all(ids.map((id) => sessions.claimPending(id, organisationId)))).toEqual(ids.map(() => ({ retried: false })));
  expect(pool.statements - before).toBe(1);
});

it('tells the second claim of one id in a tick that it retries the first, and refuses another organisation', async () => {
  const id = randomUUID();
  expect(await Promise.all([sessions.claimPending(id, organisationId), sessions.claimPending(id, organisationId), sessions.claimPending(id, organisationId + 1)])).toEqual([
    { retried: false },
    { retried: true },
    undefined,
  ]);
});

it('opens the pending sessions of one tick in one statement, and not one that is no longer pending', async () => {
  const [first, second, failed] = [randomUUID(), randomUUID(), randomUUID()];
  await Promise.all([first, second, failed].map((id) => sessions.claimPending(id, organisationId)));
  await sessions.markFailed(failed);
  const before = pool.statements;
  const opened = await Promise.all([first, second, failed].map((id) => sessions.openSession(opening(id))));
  expect(pool.statements - before).toBe(1);
  expect(opened.map((row) => row?.status)).toEqual(['open', 'open', undefined]);
  expect(opened[0]).toMatchObject({ id: first, event_id: '42', total_cents: '1000', metadata: { order: 'x' }, customer: { email: 'fan@example.com' } });
});
