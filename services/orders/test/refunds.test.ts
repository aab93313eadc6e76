/**
 * Refunding orders against real inventory, tickets and orders servers (in
 * this process), PostgreSQL, Redis and Kafka; the card processor is the
 * simulated one, whose ledger the test reads. Partial then full refunds,
 * the order's status rule, order.refunded, stock back or kept off sale; a
 * partial amount then the default and the other way round (D390); a
 * retried refund id refunds once; two refunds of the same tickets at once:
 * one goes through, the money moves once; bad input changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { ApiError, gen, toApiJson, type RequestContext } from '@partner-api/shared';
import { SimulatedCardProcessor } from '../src/adapters/simulated-card-processor';
import { Backends, newOrganisation, paidOrder, type OrdersClient } from './support';

jest.setTimeout(60_000);

const backends = new Backends();
const processor = new SimulatedCardProcessor();
let orders: Awaited<ReturnType<Backends['startOrders']>>;
let client: OrdersClient;
let ctx: RequestContext;

beforeAll(async () => {
  await backends.start();
  orders = await backends.startOrders({ REFUND_RECOVERY_DELAY_MS: '3600000' }, { paymentProvider: processor });
  client = orders.client;
  ctx = newOrganisation();
}, 60_000);

afterAll(async () => {
  client?.close();
  await backends.stop();
});

const refundsOf = (charge: string) => [...processor.refunds.values()].filter((refund) => refund.charge === charge);
const chargeOf = async (orderId: string) =>
  (await backends.ordersDb.query<{ reference: string }>("SELECT reference FROM payment_attempts WHERE session_id = $1 AND status = 'succeeded'", [orderId])).rows[0]!.reference;
const refundError = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
};
const apiJson = (order: Parameters<typeof create<typeof gen.orders.OrderSchema>>[1]) => toApiJson(gen.orders.OrderSchema, create(gen.orders.OrderSchema, order));

describe('refunding an order', () => {
  it('refunds by tickets, then the rest: tickets refunded, amount grows, status partially_refunded then refunded, order.refunded each time, stock back', async () => {
    const event = await backends.eventOnSale(ctx, 10, '30.00');
    const orderId = await paidOrder(orders, ctx, event, 3);
    expect(await backends.available(ctx, event.slug)).toBe(7);
    const before = await client.getOrder({ id: orderId }, ctx);
    const [first, second, third] = before.tickets.map((ticket) => ticket.id);

    const partial = await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [first!], reason: 'cannot come' }, ctx);
    expect(partial).toMatchObject({ status: 'partially_refunded', refundedAmount: '30.00', total: '90.00' });
    expect(partial.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'valid', 'valid']);
    expect(await backends.available(ctx, event.slug)).toBe(8);

    const rest = await client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx);
    expect(rest).toMatchObject({ status: 'refunded', refundedAmount: '90.00' });
    expect(rest.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'refunded', 'refunded']);
    expect(await backends.available(ctx, event.slug)).toBe(10);

    // The money went back through the processor: 30.00, then 60.00, against the order's charge.
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([3000n, 6000n]);

    const events = await backends.refundEvents(orderId);
    expect(events.map((event) => event.data.refunded_ticket_ids)).toEqual([[Number(first)], [Number(second), Number(third)]]);
    // The last event's object is the order as GET /orders/{id} shows it now.
    const now = await client.getOrder({ id: orderId }, ctx);
    expect(events[1]!.data.object).toEqual(apiJson(now));
    expect(events[0]!.data.object).toMatchObject({ status: 'partially_refunded', refunded_amount: '30.00' });

    // GET /orders?status=refunded finds it; status=completed no longer does.
    const refunded = await client.listOrders({ status: 'refunded', eventId: event.eventId, page: { limit: 10 } }, ctx);
    expect(refunded.data.map((order) => order.id)).toEqual([orderId]);
    const completed = await client.listOrders({ status: 'completed', eventId: event.eventId, page: { limit: 10 } }, ctx);
    expect(completed.data).toEqual([]);

    // Nothing is left to refund.
    const again = await refundError(client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx));
    expect(again).toMatchObject({ code: 'parameter_invalid', param: 'ticket_ids' });
  });

  it('keeps the tickets off sale with restock off, and takes an amount of its own', async () => {
    const event = await backends.eventOnSale(ctx, 5, '40.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const order = await client.refundOrder({ id: orderId, refundId: randomUUID(), restock: false, amount: '25.00' }, ctx);
    expect(order).toMatchObject({ status: 'refunded', refundedAmount: '25.00' });
    expect(await backends.available(ctx, event.slug)).toBe(3);
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([2500n]);
  });

  it("refunds the other ticket's share after a ticket refunded with a smaller amount; the rest of that ticket's share is not refunded", async () => {
    const event = await backends.eventOnSale(ctx, 10, '30.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const [first, second] = (await client.getOrder({ id: orderId }, ctx)).tickets.map((ticket) => ticket.id);

    const partial = await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [first!], amount: '12.50' }, ctx);
    expect(partial).toMatchObject({ status: 'partially_refunded', refundedAmount: '12.50' });
    const rest = await client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx);
    expect(rest).toMatchObject({ status: 'refunded', refundedAmount: '42.50' });
    expect(rest.tickets.map((ticket) => ticket.status)).toEqual(['refunded', 'refunded']);
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([1250n, 3000n]);
    expect((await backends.refundEvents(orderId)).map((event) => event.data.refunded_ticket_ids)).toEqual([[Number(first)], [Number(second)]]);
  });

  it('takes a smaller amount for the last ticket after a refund by default, and a larger amount only up to what is left', async () => {
    const event = await backends.eventOnSale(ctx, 10, '30.00');
    const orderId = await paidOrder(orders, ctx, event, 3);
    const [first, second, third] = (await client.getOrder({ id: orderId }, ctx)).tickets.map((ticket) => ticket.id);

    expect(await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [first!] }, ctx)).toMatchObject({ refundedAmount: '30.00' });
    expect(await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [second!], amount: '12.50' }, ctx)).toMatchObject({
      status: 'partially_refunded',
      refundedAmount: '42.50',
    });
    // An amount of its own may return more than the ticket's share, never more than paid minus refunded.
    const tooMuch = await refundError(client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [third!], amount: '47.51' }, ctx));
    expect(tooMuch).toMatchObject({ code: 'parameter_invalid', param: 'amount' });
    expect(tooMuch.message).toContain('47.50');
    const last = await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [third!], amount: '47.50' }, ctx);
    expect(last).toMatchObject({ status: 'refunded', refundedAmount: '90.00' });
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([3000n, 1250n, 4750n]);
  });

  it('never refunds by default more than is left after a larger amount of its own', async () => {
    const event = await backends.eventOnSale(ctx, 10, '30.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const [first] = (await client.getOrder({ id: orderId }, ctx)).tickets.map((ticket) => ticket.id);
    await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [first!], amount: '50.00' }, ctx);
    expect(await client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx)).toMatchObject({ status: 'refunded', refundedAmount: '60.00' });
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([5000n, 1000n]);
  });

  it('refunds once when the same refund id is sent again, and refuses that id for another refund', async () => {
    const event = await backends.eventOnSale(ctx, 10, '20.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const { tickets } = await client.getOrder({ id: orderId }, ctx);
    const refundId = randomUUID();
    const request = { id: orderId, refundId, ticketIds: [tickets[0]!.id] };

    const first = await client.refundOrder(request, ctx);
    const repeat = await client.refundOrder(request, ctx);
    expect(repeat).toEqual(first);
    expect(first).toMatchObject({ status: 'partially_refunded', refundedAmount: '20.00' });
    expect(refundsOf(await chargeOf(orderId))).toHaveLength(1);
    expect(await backends.refundEvents(orderId)).toHaveLength(1);
    expect(await backends.available(ctx, event.slug)).toBe(9);

    const reused = await refundError(client.refundOrder({ ...request, ticketIds: [tickets[1]!.id] }, ctx));
    expect(reused).toMatchObject({ code: 'idempotency_key_reused', param: 'refund_id' });
    expect((await client.getOrder({ id: orderId }, ctx)).tickets[1]!.status).toBe('valid');
  });

  it('lets exactly one of two concurrent refunds of the same tickets through, and moves the money once', async () => {
    const event = await backends.eventOnSale(ctx, 10, '25.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    // A second orders server, so the two refunds race across processes' pools, not in one.
    const other = await backends.startOrders({ REFUND_RECOVERY_DELAY_MS: '3600000' }, { paymentProvider: processor });
    try {
      const results = await Promise.allSettled([
        client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx),
        other.client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx),
      ]);
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toMatchObject({ code: 'parameter_invalid', param: 'ticket_ids' });
    } finally {
      other.client.close();
    }
    const order = await client.getOrder({ id: orderId }, ctx);
    expect(order).toMatchObject({ status: 'refunded', refundedAmount: '50.00' });
    expect(refundsOf(await chargeOf(orderId)).map((refund) => refund.amountCents)).toEqual([5000n]);
    expect(await backends.refundEvents(orderId)).toHaveLength(1);
    expect(await backends.available(ctx, event.slug)).toBe(10);
  });

  it('answers bad input with the error envelope codes and writes nothing', async () => {
    const event = await backends.eventOnSale(ctx, 10, '10.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const { tickets } = await client.getOrder({ id: orderId }, ctx);
    const cases: Array<[Parameters<OrdersClient['refundOrder']>[0], RequestContext, string, string]> = [
      [{ id: orderId }, ctx, 'parameter_missing', 'refund_id'],
      [{ id: orderId, refundId: 'not-a-uuid' }, ctx, 'parameter_invalid', 'refund_id'],
      [{ id: randomUUID(), refundId: randomUUID() }, ctx, 'resource_missing', 'id'],
      [{ id: 'nope', refundId: randomUUID() }, ctx, 'resource_missing', 'id'],
      [{ id: orderId, refundId: randomUUID() }, newOrganisation(), 'resource_missing', 'id'],
      [{ id: orderId, refundId: randomUUID(), ticketIds: [999_999_999n] }, ctx, 'parameter_invalid', 'ticket_ids'],
      [{ id: orderId, refundId: randomUUID(), ticketIds: [0n] }, ctx, 'parameter_invalid', 'ticket_ids'],
      [{ id: orderId, refundId: randomUUID(), amount: '20.01' }, ctx, 'parameter_invalid', 'amount'],
      [{ id: orderId, refundId: randomUUID(), amount: '-1' }, ctx, 'parameter_invalid', 'amount'],
      [{ id: orderId, refundId: randomUUID(), amount: 'ten' }, ctx, 'parameter_invalid', 'amount'],
      [{ id: orderId, refundId: randomUUID(), reason: 'x'.repeat(501) }, ctx, 'parameter_invalid', 'reason'],
    ];
    for (const [request, as, code, param] of cases) {
      expect(await refundError(client.refundOrder(request, as))).toMatchObject({ code, param });
    }
    // A test key validates and changes nothing.
    const dry = await client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [tickets[0]!.id] }, { ...ctx, mode: 'test' });
    expect(dry.status).toBe('completed');

    const order = await client.getOrder({ id: orderId }, ctx);
    expect(order).toMatchObject({ status: 'completed', refundedAmount: '0.00' });
    expect(order.tickets.map((ticket) => ticket.status)).toEqual(['valid', 'valid']);
    const { rows } = await backends.ordersDb.query('SELECT 1 FROM refunds WHERE order_id = $1', [orderId]);
    expect(rows).toEqual([]);
    expect(refundsOf(await chargeOf(orderId))).toEqual([]);
  });

  it('refuses a checked-in ticket', async () => {
    const event = await backends.eventOnSale(ctx, 10, '10.00');
    const orderId = await paidOrder(orders, ctx, event, 2);
    const { tickets } = await client.getOrder({ id: orderId }, ctx);
    await backends.ticketsClient.checkIn({ eventIdOrSlug: event.slug, ticketId: tickets[0]!.id }, ctx);
    expect(await refundError(client.refundOrder({ id: orderId, refundId: randomUUID(), ticketIds: [tickets[0]!.id] }, ctx))).toMatchObject({
      code: 'parameter_invalid',
      param: 'ticket_ids',
    });
    // A full refund takes the valid ticket; the checked-in one keeps the order partially refunded.
    const order = await client.refundOrder({ id: orderId, refundId: randomUUID() }, ctx);
    expect(order).toMatchObject({ status: 'partially_refunded', refundedAmount: '10.00' });
    expect(order.tickets.map((ticket) => ticket.status)).toEqual(['checked_in', 'refunded']);
  });
});
