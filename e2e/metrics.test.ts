/**
 * Application metrics after real traffic, read from each service's ops
 * port: a checkout taken and one refused, a hold that expires, a 401 and a
 * 404, and a catalog change delivered to a webhook receiver. Counters are
 * compared before and after (the stack is shared with the other suites);
 * gauges must show the state the traffic left.
 */
import { randomUUID } from 'node:crypto';
import { api, type ErrorBody } from './support/api';
import { scrape, total, type Sample } from './support/metrics';
import { inventoryClient, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { Receiver } from '../services/webhooks/test/support';

const INVENTORY_SERVICE = 'partnerapi.inventory.v1.InventoryService';
let organisation: { id: number; key: string };
let inventory: InventoryClient;
let receiver: Receiver;

beforeAll(async () => {
  organisation = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'webhooks:manage']);
  inventory = inventoryClient();
  receiver = await new Receiver().start();
}, 30_000);

afterAll(async () => {
  inventory?.close();
  await receiver?.stop();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

it('counts checkouts, holds, gRPC calls, outbox, consumer lag and deliveries with the values the traffic produced', async () => {
  const before = { gateway: await scrape('gateway'), inventory: await scrape('inventory'), webhooks: await scrape('webhooks') };
  const delta = (after: Sample[], previous: Sample[], name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(previous, name, labels);

  // A receiver for the catalog's events, then an event of three tickets, published (an outbox row → Kafka → a POST).
  const endpoint = await api<{ id: number }>('/webhook_endpoints', { method: 'POST', key: organisation.key, body: { url: `${receiver.url}/metrics`, event_types: ['event.published'] } });
  expect(endpoint.status).toBe(201);
  const ctx = operatorContext(organisation.id);
  const slug = uniqueSlug('metrics');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Metrics Live', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 3n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  // The hot-pool gauges list the 20 pools with the most holds of the last minute, and the suites before this one
  // leave events with several: a second pool of the event takes a dozen holds, so the event ranks among the hot ones.
  const crowd = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Crowd', capacity: 50n } }, ctx);
  const crowdType = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Crowd GA', price: '20.00', bookingFee: '1.00', maxPerOrder: 10, poolIds: [crowd.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  const CROWD_HOLDS = 12;
  for (let i = 0; i < CROWD_HOLDS; i += 1) {
    await inventory.holdStock({ holdId: `metrics-crowd-${randomUUID()}`, eventIdOrSlug: slug, lines: [{ ticketTypeId: crowdType.id, quantity: 1 }], ttlSeconds: 120 }, ctx);
  }

  // Two tickets held by a checkout; two more refused (one left); a hold of the last one that lapses after a second.
  const checkout = (quantity: number) => api('/checkout_sessions', { method: 'POST', key: organisation.key, body: { event_id: slug, items: [{ ticket_type_id: Number(type.id), quantity }] } });
  expect((await checkout(2)).status).toBe(201);
  const refused = await checkout(2);
  expect(refused.status).toBe(422);
  expect((refused.body as unknown as ErrorBody).error.code).toBe('exceeds_availability');
  await inventory.holdStock({ holdId: `metrics-${randomUUID()}`, eventIdOrSlug: slug, lines: [{ ticketTypeId: type.id, quantity: 1 }], ttlSeconds: 1 }, ctx);
  // Refused before routing, and a path no operation has.
  expect((await api(`/events/${slug}`, { key: 'sk_live_not_a_key' })).status).toBe(401);
  expect((await api(`/no-such-route/${slug}`, { key: organisation.key })).status).toBe(404);

  // Gateway: by route template and status, never the raw path.
  const gateway = await scrape('gateway');
  const requests = (labels: Record<string, string>) => delta(gateway, before.gateway, 'http_request_duration_seconds_count', labels);
  expect(requests({ method: 'POST', route: '/checkout_sessions', status: '201' })).toBe(1);
  expect(requests({ method: 'POST', route: '/checkout_sessions', status: '422' })).toBe(1);
  expect(requests({ method: 'GET', route: '/events/:id', status: '401' })).toBeGreaterThanOrEqual(1);
  expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
  expect(gateway.filter((sample) => sample.labels.route?.includes(slug))).toEqual([]);
  const checkoutBuckets = gateway.filter((sample) => sample.name === 'http_request_duration_seconds_bucket' && sample.labels.route === '/checkout_sessions' && sample.labels.status === '201');
  expect(checkoutBuckets.find((sample) => sample.labels.le === '+Inf')!.value).toBe(total(gateway, 'http_request_duration_seconds_count', { route: '/checkout_sessions', status: '201' }));

  // Inventory: gRPC by method and code, holds by outcome, the expiry, the gate and the pool's stock.
  // Other suites' holds expire on this stack too: wait for this event's ticket to be back, not for any expiry.
  const stockOfPool = (samples: Sample[]) => total(samples, 'inventory_pool_stock_remaining', { event_id: String(event.id), pool_id: String(pool.id) });
  const afterExpiry = await until(() => scrape('inventory'), (samples) => delta(samples, before.inventory, 'inventory_holds_expired_total') >= 1 && stockOfPool(samples) === 1);
  const inv = (name: string, labels: Record<string, string> = {}) => delta(afterExpiry, before.inventory, name, labels);
  expect(inv('grpc_server_handling_seconds_count', { grpc_service: INVENTORY_SERVICE, grpc_method: 'HoldStock', grpc_code: 'OK' })).toBeGreaterThanOrEqual(2);
  expect(inv('grpc_server_handling_seconds_count', { grpc_service: INVENTORY_SERVICE, grpc_method: 'HoldStock' }) - inv('grpc_server_handling_seconds_count', { grpc_service: INVENTORY_SERVICE, grpc_method: 'HoldStock', grpc_code: 'OK' })).toBeGreaterThanOrEqual(1);
  expect(inv('inventory_holds_total', { outcome: 'taken' })).toBe(2 + CROWD_HOLDS);
  expect(inv('inventory_holds_total', { outcome: 'refused' })).toBe(1);
  expect(inv('inventory_holds_expired_total')).toBeGreaterThanOrEqual(1);
  expect(total(afterExpiry, 'inventory_redis_gate_open')).toBe(1);
  // The lapsed hold's ticket is back: one left of three.
  expect(stockOfPool(afterExpiry)).toBe(1);
  expect(afterExpiry.filter((sample) => sample.name === 'inventory_pool_stock_remaining').length).toBeLessThanOrEqual(20);
  expect(afterExpiry.some((sample) => sample.name === 'outbox_rows_waiting')).toBe(true);
  expect(total(afterExpiry, 'outbox_oldest_age_seconds')).toBeLessThan(30);

  // Webhooks: the publication delivered (a success and its latency), and the group's lag drained to nothing.
  const webhooks = await until(() => scrape('webhooks'), (samples) => delta(samples, before.webhooks, 'webhook_delivery_duration_seconds_count', { outcome: 'succeeded' }) >= 1);
  expect(receiver.requests.some((request) => request.path === '/metrics' && request.headers['service-event-type'] === 'event.published')).toBe(true);
  expect(delta(webhooks, before.webhooks, 'webhook_delivery_duration_seconds_count', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
  expect(delta(webhooks, before.webhooks, 'webhook_delivery_duration_seconds_sum', { outcome: 'succeeded' })).toBeGreaterThan(0);
  expect(delta(webhooks, before.webhooks, 'grpc_server_handling_seconds_count', { grpc_method: 'CreateEndpoint', grpc_code: 'OK' })).toBe(1);
  const drained = await until(() => scrape('webhooks'), (samples) => samples.some((sample) => sample.name === 'kafka_consumer_group_lag') && total(samples, 'kafka_consumer_group_lag') === 0);
  const lag = drained.filter((sample) => sample.name === 'kafka_consumer_group_lag');
  expect(lag.length).toBeGreaterThan(0);
  expect(lag.every((sample) => sample.labels.partition !== undefined && sample.labels.group !== undefined)).toBe(true);
  expect(total(drained, 'kafka_consumer_group_lag')).toBe(0);
}, 60_000);
