/**
 * Nothing is lost when the process that took a payment dies: an orders
 * process charges the card, cannot reach the tickets service, and is
 * SIGKILLed before it completes the order. The surviving orders process's
 * recovery loop completes it: one order, its tickets, one order.completed.
 */
import { createPool } from '@partner-api/shared';
import { api, env } from './support/api';
import { EventCollector } from './support/events';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug } from './support/operator';
import { freePort, startServiceProcess, type ServiceProcess } from './support/service-process';

const ordersDb = createPool({ url: env('DATABASE_URL'), schema: 'orders', max: 2 });
let doomed: ServiceProcess | undefined;
let events: EventCollector | undefined;

afterAll(async () => {
  await doomed?.kill();
  await events?.stop();
  await ordersDb.end();
}, 30_000); // a Kafka consumer leaving its group can take seconds on a busy broker

it('completes a paid order after the orders process that took the payment is killed', async () => {
  const org = await newOrganisation(['orders:write', 'orders:read']);
  events = new EventCollector(org.id);
  await events.start();
  const inventory = inventoryClient();
  const ctx = operatorContext(org.id);
  const slug = uniqueSlug('crash');
  await inventory.upsertEvent({ fields: { slug, title: 'Crash Test', startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: 10n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '30.00', bookingFee: '0.00', maxPerOrder: 5, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  inventory.close();

  const session = (await api<{ id: string }>('/checkout_sessions', { key: org.key, method: 'POST', body: { event_id: slug, items: [{ ticket_type_id: Number(type.id), quantity: 3 }] } })).body;

  // A second orders process whose tickets service is unreachable and whose own recovery loop never runs.
  doomed = await startServiceProcess('orders', {
    GRPC_PORT: String(await freePort()),
    OPS_PORT: '9472',
    HTTP_PORT: '4172',
    TICKETS_GRPC_ADDR: '127.0.0.1:9',
    PAYMENT_RECOVERY_INTERVAL_MS: '600000',
  });
  const page = await payCheckout(`http://127.0.0.1:4172/checkout/${session.id}`, { email: 'crash@example.com', ...GOOD_CARD });
  expect(page.status).toBe(202);
  expect(page.html).toContain('being confirmed');
  const { rows: attempts } = await ordersDb.query<{ status: string }>('SELECT status FROM payment_attempts WHERE session_id = $1', [session.id]);
  expect(attempts.map((attempt) => attempt.status)).toEqual(['succeeded']);
  expect((await api(`/orders/${session.id}`, { key: org.key })).status).toBe(404);
  expect((await api<{ status: string }>(`/checkout_sessions/${session.id}`, { key: org.key })).body.status).toBe('open');

  await doomed.kill();
  doomed = undefined;

  // The stack's own orders process picks the paid session up.
  const deadline = Date.now() + 30_000;
  let order: { status: number; body: { status: string; tickets: unknown[]; customer: { email: string } } };
  do {
    await new Promise((resolve) => setTimeout(resolve, 250));
    order = await api(`/orders/${session.id}`, { key: org.key });
  } while (order.status === 404 && Date.now() < deadline);
  expect(order.status).toBe(200);
  expect(order.body).toMatchObject({ status: 'completed', customer: { email: 'crash@example.com' } });
  expect(order.body.tickets).toHaveLength(3);

  await events.waitFor((all) => all.filter((e) => e.type === 'ticket.issued').length >= 3 && all.some((e) => e.type === 'order.completed'), 'the order events');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(events.events.filter((e) => e.type === 'order.completed')).toHaveLength(1);
  expect(events.events.filter((e) => e.type === 'ticket.issued')).toHaveLength(3);
  const { rows: orders } = await ordersDb.query('SELECT 1 FROM orders WHERE checkout_session_id = $1', [session.id]);
  expect(orders).toHaveLength(1);
}, 90_000);
