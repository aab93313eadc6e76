/**
 * Helpers of the orders' integration suites: inventory, tickets and orders
 * servers in this process on free ports (real PostgreSQL, Redis, Kafka),
 * an event on sale, and orders paid through the hosted checkout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger, createPool, createServiceClient, gen, randomBase62, type Pool, type RequestContext, type ServiceClient, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { loadTicketsConfig, startTickets } from '@partner-api/tickets';
import { loadOrdersConfig, startOrdersService, type OrdersDependencies, type RunningOrders } from '../src';

export type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;
export type OrdersClient = ServiceClient<(typeof gen.orders.OrdersService)['method']>;
export type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;

export const silent = createLogger('it', process.env.IT_LOG_LEVEL ?? 'silent');
export const newOrganisation = (): RequestContext => ({ organisationId: 900_000 + Math.floor(Math.random() * 99_999), mode: 'live', keyId: 0, requestId: `it-${randomBase62(8)}` });

/** A port nothing listens on now, for a process that binds it next. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The built orders service in a process of its own (a kill takes it, not the suite), ready once /readyz answers. */
export async function startOrdersProcess(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn', OTEL_SDK_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${env.OPS_PORT}/readyz`).then((response) => response.ok, () => false);
    if (ready) return { child, output: () => output };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`orders did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Inventory and tickets, shared by every orders server of a suite. */
export class Backends {
  inventory!: ServiceRuntime;
  tickets!: ServiceRuntime;
  inventoryClient!: InventoryClient;
  ticketsClient!: TicketsClient;
  readonly ordersDb: Pool = createPool({ url: process.env.DATABASE_URL!, schema: 'orders', max: 3 });
  readonly inventoryDb: Pool = createPool({ url: process.env.DATABASE_URL!, schema: 'inventory', max: 2 });
  /** The suite's waiting-list join counts in Redis: shared by its orders servers, apart from every other suite's (and run's). */
  readonly joinCountsPrefix = `it:orders-joins:${randomBase62(8)}:`;
  private readonly orders: RunningOrders[] = [];

  async start(): Promise<this> {
    const base = { ...process.env, GRPC_PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'silent' };
    this.inventory = await startInventory(loadInventoryConfig(base), silent);
    this.tickets = await startTickets(loadTicketsConfig({ ...base, INVENTORY_GRPC_ADDR: this.inventoryAddr }), silent);
    this.inventoryClient = createServiceClient(gen.inventory.InventoryService, this.inventoryAddr);
    this.ticketsClient = createServiceClient(gen.tickets.TicketsService, this.ticketsAddr);
    return this;
  }

  get inventoryAddr(): string {
    return `127.0.0.1:${this.inventory.grpcPort}`;
  }

  get ticketsAddr(): string {
    return `127.0.0.1:${this.tickets.grpcPort}`;
  }

  /** The environment an orders process needs to reach these backends. */
  ordersEnv(extra: Record<string, string> = {}): Record<string, string> {
    return { GRPC_PORT: '0', OPS_PORT: '0', HTTP_PORT: '0', LOG_LEVEL: 'silent', INVENTORY_GRPC_ADDR: this.inventoryAddr, TICKETS_GRPC_ADDR: this.ticketsAddr, ...extra };
  }

  /** An orders server in this process; stopped with the backends. */
  async startOrders(extra: Record<string, string> = {}, dependencies: OrdersDependencies = {}): Promise<{ running: RunningOrders; client: OrdersClient }> {
    const running = await startOrdersService(loadOrdersConfig({ ...process.env, ...this.ordersEnv(extra) }), silent, { joinCountsPrefix: this.joinCountsPrefix, ...dependencies });
    this.orders.push(running);
    const client = createServiceClient(gen.orders.OrdersService, `127.0.0.1:${running.runtime.grpcPort}`);
    return { running, client };
  }

  async stop(): Promise<void> {
    for (const running of this.orders) await running.runtime.stop();
    this.inventoryClient?.close();
    this.ticketsClient?.close();
    await this.tickets?.stop();
    await this.inventory?.stop();
    await this.ordersDb.end();
    await this.inventoryDb.end();
  }

  /** A published event of the organisation with one capped pool and a ticket type at `price` (no fee). */
  async eventOnSale(ctx: RequestContext, capacity = 10, price = '30.00'): Promise<{ slug: string; eventId: bigint; poolId: bigint; typeId: bigint }> {
    const slug = `refund-${randomBase62(10).toLowerCase()}`;
    const event = await this.inventoryClient.upsertEvent({ fields: { slug, title: 'Refund Night', startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
    const pool = await this.inventoryClient.upsertPool({ eventIdOrSlug: slug, fields: { name: 'All', capacity: BigInt(capacity) } }, ctx);
    const type = await this.inventoryClient.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price, bookingFee: '0.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
    await this.inventoryClient.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
    return { slug, eventId: event.id, poolId: pool.id, typeId: type.id };
  }

  /** Tickets left in the type's pool, as partners read them. */
  async available(ctx: RequestContext, slug: string): Promise<number> {
    const { data } = await this.inventoryClient.listTicketTypes({ eventIdOrSlug: slug }, ctx);
    return Number(data[0]!.available);
  }

  /** The order.refunded events orders wrote for this order (the outbox, before Kafka). */
  async refundEvents(orderId: string): Promise<Array<{ type: string; data: { object: Record<string, unknown>; refunded_ticket_ids: number[] } }>> {
    const { rows } = await this.ordersDb.query<{ payload: never }>("SELECT payload FROM outbox WHERE partition_key = $1 AND event_type = 'order.refunded' ORDER BY id", [`order:${orderId}`]);
    return rows.map((row) => row.payload);
  }
}

/** A checkout of `quantity` tickets, paid with a good card on the orders server's hosted checkout: the order id. */
export async function paidOrder(orders: { running: RunningOrders; client: OrdersClient }, ctx: RequestContext, event: { slug: string; typeId: bigint }, quantity: number): Promise<string> {
  const session = await orders.client.createCheckoutSession({ eventIdOrSlug: event.slug, items: [{ ticketTypeId: event.typeId, quantity }] }, ctx);
  const response = await fetch(`http://127.0.0.1:${orders.running.checkoutPort}/checkout/${session.id}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', card_name: 'Ann Lee', card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123' }).toString(),
    redirect: 'manual',
  });
  if (response.status !== 303) throw new Error(`paying ${session.id} answered ${response.status}`);
  return session.id!;
}

/**
 * A loopback stand-in for Stripe's refunds endpoint that keeps its ledger
 * like Stripe does: one refund per Idempotency-Key, a repeat answered with
 * the first. While `hold` is set, refunds are recorded but not answered
 * (the processor did its part; the answer is still on its way).
 */
export class StripeStandIn {
  readonly requests: Array<{ idempotencyKey: string; form: URLSearchParams }> = [];
  readonly refunds = new Map<string, { id: string; amount: number; paymentIntent: string }>();
  hold = false;
  private server!: http.Server;
  private readonly waiting: Array<() => void> = [];

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        if (req.method !== 'POST' || req.url !== '/v1/refunds') {
          res.writeHead(404, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'unknown stub path' } }));
        }
        const idempotencyKey = String(req.headers['idempotency-key']);
        this.requests.push({ idempotencyKey, form });
        if (!this.refunds.has(idempotencyKey)) {
          this.refunds.set(idempotencyKey, { id: `re_${randomBase62(12)}`, amount: Number(form.get('amount')), paymentIntent: form.get('payment_intent')! });
        }
        this.waiting.splice(0).forEach((wake) => wake());
        if (this.hold) return; // never answered: the caller dies waiting
        const refund = this.refunds.get(idempotencyKey)!;
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_stub' });
        res.end(JSON.stringify({ id: refund.id, object: 'refund', status: 'succeeded', amount: refund.amount }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once a refund request has arrived. */
  nextRequest(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
