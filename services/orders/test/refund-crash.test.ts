/**
 * A refund is never lost nor made twice when the orders process dies
 * between the card processor's refund and the database: an orders process
 * (the built service, its own process) asks the processor (a stand-in for
 * Stripe's API, in this process, so its ledger outlives the kill) for the
 * refund, which records it and does not answer; the process is SIGKILLed.
 * Another orders process's recovery loop asks again with the same refund
 * id, gets the same refund back, and finishes: one refund at the
 * processor, the tickets refunded, the stock back, one order.refunded.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServiceClient, gen, type RequestContext } from '@partner-api/shared';
import { Backends, freePort, newOrganisation, paidOrder, startOrdersProcess, StripeStandIn } from './support';

jest.setTimeout(120_000);

const backends = new Backends();
const stripe = new StripeStandIn();
let doomed: ChildProcess | undefined;
let ctx: RequestContext;

beforeAll(async () => {
  await backends.start();
  await stripe.start();
  ctx = newOrganisation();
}, 60_000);

afterAll(async () => {
  if (doomed && doomed.exitCode === null && doomed.signalCode === null) doomed.kill('SIGKILL');
  await backends.stop();
  await stripe.stop();
});

it('finishes a refund whose process died between the processor and the database, refunding once', async () => {
  // Sold through an orders server with the simulated processor; it never takes up refunds itself.
  const seller = await backends.startOrders({ REFUND_RECOVERY_DELAY_MS: '3600000' });
  const event = await backends.eventOnSale(ctx, 10, '35.00');
  const orderId = await paidOrder(seller, ctx, event, 2);
  expect(await backends.available(ctx, event.slug)).toBe(8);

  const stripeEnv = { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_standin', STRIPE_API_BASE: stripe.url };
  const grpcPort = await freePort();
  const started = await startOrdersProcess({ ...backends.ordersEnv(stripeEnv), GRPC_PORT: String(grpcPort), OPS_PORT: String(await freePort()), REFUND_RECOVERY_DELAY_MS: '3600000' });
  doomed = started.child;
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  const client = createServiceClient(gen.orders.OrdersService, `127.0.0.1:${grpcPort}`);

  stripe.hold = true;
  const refundId = randomUUID();
  const arrived = stripe.nextRequest();
  const call = client.refundOrder({ id: orderId, refundId, reason: 'crash test' }, ctx).then(
    () => 'answered',
    () => 'failed',
  );
  await arrived;
  // The processor has refunded; the process that asked dies before it hears so.
  started.child.kill('SIGKILL');
  await exited;
  expect(await call).toBe('failed');
  client.close();

  const { rows: left } = await backends.ordersDb.query<{ status: string }>('SELECT status FROM refunds WHERE id = $1', [refundId]);
  expect(left).toEqual([{ status: 'pending' }]);
  expect((await backends.ticketsClient.listTicketsForOrders({ orderIds: [orderId] }, ctx)).tickets.map((ticket) => ticket.status)).toEqual(['valid', 'valid']);
  expect(await backends.refundEvents(orderId)).toEqual([]);

  // Another orders process (same processor) takes the refund up.
  stripe.hold = false;
  const survivor = await backends.startOrders({ ...stripeEnv, PAYMENT_RECOVERY_INTERVAL_MS: '200', REFUND_RECOVERY_DELAY_MS: '0' });
  const deadline = Date.now() + 30_000;
  let status = 'pending';
  while (status !== 'completed' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    status = (await backends.ordersDb.query<{ status: string }>('SELECT status FROM refunds WHERE id = $1', [refundId])).rows[0]!.status;
  }
  expect(status).toBe('completed');

  // Asked twice with the refund id as Idempotency-Key, refunded once: 70.00 of the order's charge.
  expect(stripe.requests.length).toBeGreaterThanOrEqual(2);
  expect(new Set(stripe.requests.map((request) => request.idempotencyKey))).toEqual(new Set([refundId]));
  expect([...stripe.refunds.values()].map((refund) => refund.amount)).toEqual([7000]);

  const order = await survivor.client.getOrder({ id: orderId }, ctx);
  expect(order).toMatchObject({ status: 'refunded', refundedAmount: '70.00' });
  expect(order.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'refunded']);
  expect(await backends.available(ctx, event.slug)).toBe(10);
  const events = await backends.refundEvents(orderId);
  expect(events).toHaveLength(1);
  expect(events[0]!.data.refunded_ticket_ids).toEqual(order.tickets.map((ticket) => Number(ticket.id)));

  // The operator's retry after the crash, with the same id, changes nothing more.
  const retried = await survivor.client.refundOrder({ id: orderId, refundId }, ctx);
  expect(retried).toMatchObject({ status: 'refunded', refundedAmount: '70.00' });
  expect([...stripe.refunds.values()]).toHaveLength(1);
  expect(await backends.refundEvents(orderId)).toHaveLength(1);
});
