/**
 * The sample partner app (examples/partner-app) against the running stack:
 * it listens on loopback, its webhook endpoint is registered through the
 * client, a customer buys a ticket through it and pays on the hosted
 * checkout, and the app must receive and verify that sale's `order.completed`.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPartnerClient, type WebhookEvent } from '@partner-api/client';
import { createPartnerApp } from '../examples/partner-app/src/app';
import { env } from './support/api';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';

const client = createPartnerClient({ baseUrl: env('BASE_URL'), apiKey: env('DEMO_LIVE_KEY') });
const secrets: string[] = [];
const received: WebhookEvent[] = [];
let server: Server;
let appUrl: string;
let endpointId: number | undefined;

beforeAll(async () => {
  server = createPartnerApp({ client, webhookSecrets: secrets, onEvent: (event) => received.push(event) }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endpoint = await client.webhookEndpoints.create({ url: `${appUrl}/webhooks`, event_types: ['order.completed'], description: 'sample partner app (e2e)' });
  endpointId = endpoint.id;
  secrets.push(endpoint.secret!);
});

afterAll(async () => {
  if (endpointId !== undefined) await client.webhookEndpoints.delete(endpointId);
  server.closeAllConnections();
  server.close();
});

async function orderCompleted(orderId: string, timeoutMs = 30_000): Promise<WebhookEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = received.find((candidate) => candidate.type === 'order.completed' && candidate.data.object.id === orderId);
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`no verified order.completed for ${orderId} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

it('sells a ticket through the client and receives the verified order.completed of the sale', async () => {
  let ticketTypeId: number | undefined;
  for await (const type of client.events.ticketTypes('midnight-oil-reunion')) if (type.status === 'on_sale' && !type.seated) ticketTypeId ??= type.id;
  expect(ticketTypeId).toBeDefined();

  const bought = await fetch(`${appUrl}/tickets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event_id: 'midnight-oil-reunion', ticket_type_id: ticketTypeId, email: 'sam@example.com' }),
  });
  expect(bought.status).toBe(201);
  const { session_id, checkout_url } = (await bought.json()) as { session_id: string; checkout_url: string };
  expect(session_id).toMatch(/^[0-9a-f-]{36}$/);

  const paid = await payCheckout(checkout_url, { email: 'sam@example.com', first_name: 'Sam', last_name: 'Lee', ...GOOD_CARD });
  expect(paid.status).toBe(303);

  const event = await orderCompleted(session_id);
  expect(event).toMatchObject({ type: 'order.completed', livemode: true, data: { object: { object: 'order', id: session_id, status: 'completed' } } });
  expect((await client.orders.retrieve(session_id)).tickets).toHaveLength(1);
});

it('answers 400 to a delivery whose signature is not the endpoint secret, and records nothing', async () => {
  const before = received.length;
  const body = JSON.stringify({ id: 'evt_forged', object: 'event', type: 'order.completed', data: { object: {} } });
  const t = Math.floor(Date.now() / 1000);
  const forged = await fetch(`${appUrl}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'service-signature': `t=${t},v1=${'0'.repeat(64)}` }, body });
  expect(forged.status).toBe(400);
  expect(await forged.json()).toEqual({ error: 'no_matching_signature' });
  expect(received.length).toBe(before);
});

it('passes the API refusal of a sale through with its code', async () => {
  const refused = await fetch(`${appUrl}/tickets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event_id: 'midnight-oil-reunion', ticket_type_id: 999_999_999, email: 'sam@example.com' }) });
  expect(refused.status).toBe(404);
  expect(await refused.json()).toMatchObject({ error: 'resource_missing' });
});
