/**
 * Webhook endpoints over HTTP, against the running stack (whose webhooks
 * service accepts receivers on loopback, as local development does): the
 * six operations with their scope, errors and test-key rules, test events
 * checked the way a partner's receiver checks them, and a real catalog
 * change travelling inventory → outbox → Kafka → webhooks → a signed POST.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { api, type ErrorBody } from './support/api';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { Receiver, waitFor } from '../services/webhooks/test/support';
import { partnerAccepts } from './support/webhooks';

interface Endpoint {
  object: string;
  id: number;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  status: string;
  mode: string;
  consecutive_failures: number;
  disabled_at: string | null;
  disabled_reason: string | null;
  secret_hint: string;
  secret?: string;
}

let organisation: { id: number; key: string };
let testKey: string;
let receiver: Receiver;
let inventory: InventoryClient;

beforeAll(async () => {
  organisation = await newOrganisation(['webhooks:manage', 'events:read']);
  testKey = await issueKey(organisation.id, ['webhooks:manage'], 'test');
  receiver = await new Receiver().start();
  inventory = inventoryClient();
}, 30_000);

afterAll(async () => {
  inventory?.close();
  await receiver?.stop();
});

const errorOf = (body: unknown) => (body as ErrorBody).error;

const create = (body: Record<string, unknown>, key = organisation.key) => api<Endpoint>('/webhook_endpoints', { method: 'POST', key, body });

describe('scope', () => {
  it.each([
    ['GET', '/webhook_endpoints', undefined],
    ['POST', '/webhook_endpoints', { url: 'https://93.184.216.34/' }],
    ['GET', '/webhook_endpoints/1', undefined],
    ['PATCH', '/webhook_endpoints/1', { enabled: false }],
    ['DELETE', '/webhook_endpoints/1', undefined],
    ['POST', '/webhook_endpoints/1/test', {}],
  ])('%s %s needs webhooks:manage: 403 insufficient_scope', async (method, path, body) => {
    const key = await issueKey(organisation.id, ['events:read', 'orders:read', 'orders:write', 'attendees:read', 'check_in:write']);
    const response = await api(path, { method, key, body });
    expect(response.status).toBe(403);
    expect(errorOf(response.body)).toMatchObject({ type: 'permission_error', code: 'insufficient_scope', request_id: response.headers.get('request-id') });
  });
});

describe('managing endpoints', () => {
  it('creates (secret shown once), lists, reads, updates and deletes an endpoint', async () => {
    const created = await create({ url: `${receiver.url}/lifecycle`, event_types: ['order.completed', 'ticket.issued'], description: 'Box office sync' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'webhook_endpoint',
      url: `${receiver.url}/lifecycle`,
      description: 'Box office sync',
      event_types: ['order.completed', 'ticket.issued'],
      enabled: true,
      status: 'enabled',
      mode: 'live',
      consecutive_failures: 0,
      disabled_at: null,
      disabled_reason: null,
      last_success_at: null,
      last_failure_at: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(created.body.secret_hint).toBe(`whsec_…${created.body.secret!.slice(-4)}`);
    const id = created.body.id;

    const list = await api<{ object: string; data: Endpoint[]; has_more: boolean; next_cursor: null }>('/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const listed = await api<{ data: Endpoint[] }>('/webhook_endpoints', { key: organisation.key });
    expect(listed.body.data.map((endpoint) => endpoint.id)).toContain(id);
    expect(listed.body.data.every((endpoint) => !('secret' in endpoint))).toBe(true);

    const read = await api<Endpoint>(`/webhook_endpoints/${id}`, { key: organisation.key });
    expect(read.status).toBe(200);
    expect('secret' in read.body).toBe(false);

    const paused = await api<Endpoint>(`/webhook_endpoints/${id}`, { method: 'PATCH', key: organisation.key, body: { enabled: false, description: null } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ enabled: false, status: 'disabled', disabled_reason: 'paused', description: null, event_types: ['order.completed', 'ticket.issued'] });
    expect(paused.body.disabled_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const resumed = await api<Endpoint>(`/webhook_endpoints/${id}`, { method: 'PATCH', key: organisation.key, body: { enabled: true, event_types: ['*'] } });
    expect(resumed.body).toMatchObject({ enabled: true, status: 'enabled', disabled_at: null, disabled_reason: null, event_types: ['*'] });

    const deleted = await api(`/webhook_endpoints/${id}`, { method: 'DELETE', key: organisation.key });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect(deleted.headers.get('request-id')).toMatch(/^req_/);
    const gone = await api(`/webhook_endpoints/${id}`, { key: organisation.key });
    expect(gone.status).toBe(404);
    expect(errorOf(gone.body)).toMatchObject({ type: 'not_found_error', code: 'resource_missing' });
  });

  it.each([
    ['no url (this endpoint lists a missing url under parameter_invalid)', {}, 'parameter_invalid', 'url'],
    ['a url too long', { url: `https://hooks.example.com/${'x'.repeat(2_100)}` }, 'parameter_invalid', 'url'],
    ['plain http to a public host', { url: 'http://93.184.216.34/hook' }, 'parameter_invalid', 'url'],
    ['a private address', { url: 'https://192.168.10.20/hook' }, 'parameter_invalid', 'url'],
    ['cloud metadata', { url: 'https://169.254.169.254/latest/meta-data' }, 'parameter_invalid', 'url'],
    ['an internal name', { url: 'https://billing.internal/hook' }, 'parameter_invalid', 'url'],
    ['an empty event type list', { url: 'https://93.184.216.34/', event_types: [] }, 'parameter_invalid', 'event_types'],
    ['an unknown event type', { url: 'https://93.184.216.34/', event_types: ['order.completed', 'order.shipped'] }, 'parameter_invalid', 'event_types[1]'],
    ['"*" with other types', { url: 'https://93.184.216.34/', event_types: ['*', 'order.completed'] }, 'parameter_invalid', 'event_types'],
    ['a description over 255 characters', { url: 'https://93.184.216.34/', description: 'd'.repeat(256) }, 'parameter_invalid', 'description'],
    ['a bad mode', { url: 'https://93.184.216.34/', mode: 'staging' }, 'parameter_invalid', 'mode'],
  ])('refuses %s with 400 and the field named', async (_, body, code, param) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(errorOf(response.body)).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('answers 404 for an unknown id and for an id that is not an integer', async () => {
    const missing = await api('/webhook_endpoints/999999999', { key: organisation.key });
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body).code).toBe('resource_missing');
    const bad = await api('/webhook_endpoints/abc', { key: organisation.key });
    expect(bad.status).toBe(404);
    expect(errorOf(bad.body)).toMatchObject({ code: 'resource_missing', param: 'id' });
  });

  it("never shows another organisation's endpoint", async () => {
    const other = await newOrganisation(['webhooks:manage']);
    const theirs = await create({ url: `${receiver.url}/theirs`, mode: 'test' }, other.key);
    for (const [method, path, body] of [
      ['GET', `/webhook_endpoints/${theirs.body.id}`, undefined],
      ['PATCH', `/webhook_endpoints/${theirs.body.id}`, { enabled: false }],
      ['DELETE', `/webhook_endpoints/${theirs.body.id}`, undefined],
      ['POST', `/webhook_endpoints/${theirs.body.id}/test`, {}],
    ] as const) {
      const response = await api(path, { method, key: organisation.key, body });
      expect({ method, status: response.status, code: errorOf(response.body).code }).toEqual({ method, status: 404, code: 'resource_missing' });
    }
    const mine = await api<{ data: Endpoint[] }>('/webhook_endpoints', { key: organisation.key });
    expect(mine.body.data.map((endpoint) => endpoint.id)).not.toContain(theirs.body.id);
  });

  it('gives a test key its own test endpoints only', async () => {
    const liveEndpoint = await create({ url: `${receiver.url}/live-only`, mode: 'test' });
    const testEndpoint = await create({ url: `${receiver.url}/sandbox` }, testKey);
    expect(testEndpoint.status).toBe(201);
    expect(testEndpoint.body.mode).toBe('test');
    const refused = await create({ url: `${receiver.url}/sandbox`, mode: 'live' }, testKey);
    expect(refused.status).toBe(400);
    expect(errorOf(refused.body)).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    const listed = await api<{ data: Endpoint[] }>('/webhook_endpoints', { key: testKey });
    expect(listed.body.data.every((endpoint) => endpoint.mode === 'test')).toBe(true);
    expect(listed.body.data.map((endpoint) => endpoint.id)).toEqual(expect.arrayContaining([testEndpoint.body.id, liveEndpoint.body.id]));

    const live = await create({ url: `${receiver.url}/live-mode` });
    const hidden = await api(`/webhook_endpoints/${live.body.id}`, { key: testKey });
    expect(hidden.status).toBe(404);
  });

  it('replays a create with the same Idempotency-Key byte for byte: one endpoint, one secret', async () => {
    const headers = { 'Idempotency-Key': `create-${Date.now()}` };
    const body = { url: `${receiver.url}/idempotent`, mode: 'test' };
    const first = await api<Endpoint>('/webhook_endpoints', { method: 'POST', body, headers });
    const again = await api<Endpoint>('/webhook_endpoints', { method: 'POST', body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('test events', () => {
  it('sends a signed sample to the endpoint and answers with the delivery', async () => {
    const endpoint = await create({ url: `${receiver.url}/test-send`, event_types: ['order.completed'] });
    const response = await api<{ object: string; event_id: string; [key: string]: unknown }>(`/webhook_endpoints/${endpoint.body.id}/test`, {
      method: 'POST',
      key: organisation.key,
      body: { type: 'ticket.checked_in' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: endpoint.body.id,
      endpoint_url: `${receiver.url}/test-send`,
      event_type: 'ticket.checked_in',
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
      error: null,
      manual: true,
      next_retry_at: null,
    });
    expect(response.body.event_id).toMatch(/^evt_/);

    const [request] = receiver.forEvent(response.body.event_id);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'service-event-type': 'ticket.checked_in',
      'service-delivery-attempt': '1',
    });
    expect(request!.headers['user-agent']).toMatch(/\/1\.0$/);
    expect(partnerAccepts(String(request!.headers['service-signature']), request!.body, endpoint.body.secret!)).toBe(true);
    const event = JSON.parse(request!.body) as Record<string, unknown>;
    expect(event).toMatchObject({ id: response.body.event_id, object: 'event', type: 'ticket.checked_in', api_version: '2026-10-18', livemode: false, organisation_id: organisation.id });
    expect(event.created).toEqual(expect.any(Number));
    expect((event.data as { object: { object: string } }).object.object).toBe('ticket');
  });

  it('answers 500 test_event_failed when the receiver does not take it, and never retries', async () => {
    const endpoint = await create({ url: `${receiver.url}/refusing`, mode: 'test' });
    receiver.answer = (request) => (request.path === '/refusing' ? 400 : 200);
    try {
      const response = await api(`/webhook_endpoints/${endpoint.body.id}/test`, { method: 'POST', key: organisation.key, body: {} });
      expect(response.status).toBe(500);
      expect(errorOf(response.body)).toMatchObject({ type: 'api_error', code: 'test_event_failed' });
      expect(errorOf(response.body).message).toContain('400');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const sent = receiver.requests.filter((request) => request.path === '/refusing');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.headers['service-event-type']).toBe('order.completed');
    } finally {
      receiver.answer = () => 200;
    }
  });
});

describe('secret rotation', () => {
  it('partnerctl webhook rotate-secret prints a new secret; both sign for the overlap', async () => {
    const endpoint = await create({ url: `${receiver.url}/rotating`, mode: 'test' });
    const cli = path.join(__dirname, '..', 'services', 'cli', 'dist', 'main.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'webhook', 'rotate-secret', String(endpoint.body.id), '--org', String(organisation.id)]);
    const rotated = JSON.parse(stdout) as Endpoint;
    expect(rotated.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(rotated.secret).not.toBe(endpoint.body.secret);
    expect(rotated.secret_hint).toBe(`whsec_…${rotated.secret!.slice(-4)}`);

    const sent = await api<{ event_id: string }>(`/webhook_endpoints/${endpoint.body.id}/test`, { method: 'POST', key: organisation.key, body: {} });
    const [request] = receiver.forEvent(sent.body.event_id);
    const signature = String(request!.headers['service-signature']);
    expect(signature.match(/v1=/g)).toHaveLength(2);
    expect(partnerAccepts(signature, request!.body, rotated.secret!)).toBe(true);
    expect(partnerAccepts(signature, request!.body, endpoint.body.secret!)).toBe(true);
  });
});

describe('live events', () => {
  it("delivers a published event of the organisation's catalog, signed, to its subscribed endpoint", async () => {
    const endpoint = await create({ url: `${receiver.url}/catalog`, event_types: ['event.published'] });
    const ctx = operatorContext(organisation.id);
    const slug = uniqueSlug('hooked');
    await inventory.upsertEvent({ fields: { slug, title: 'Hooked Live', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);

    const deadline = Date.now() + 20_000;
    const delivered = () => receiver.requests.find((request) => request.path === '/catalog' && request.headers['service-event-type'] === 'event.published');
    while (!delivered() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const request = delivered();
    expect(request).toBeDefined();
    expect(partnerAccepts(String(request!.headers['service-signature']), request!.body, endpoint.body.secret!)).toBe(true);
    const event = JSON.parse(request!.body) as { id: string; livemode: boolean; organisation_id: number; data: { object: { slug: string; status: string } } };
    expect(request!.headers['service-event-id']).toBe(event.id);
    expect(event).toMatchObject({ livemode: true, organisation_id: organisation.id, data: { object: { slug, status: 'published' } } });

    // The service records the success once the receiver's answer is back (its outcomes are written in batches): a moment after the POST arrived.
    const lastSuccess = async () =>
      (await api<Endpoint & { last_success_at: string | null }>(`/webhook_endpoints/${endpoint.body.id}`, { key: organisation.key })).body.last_success_at;
    await waitFor(async () => (await lastSuccess()) !== null, 10_000, 'the endpoint to record its last success');
    expect(Date.parse((await lastSuccess())!)).toBeGreaterThan(Date.now() - 60_000);
  });
});
