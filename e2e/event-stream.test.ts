/**
 * The event stream (`GET /webhook_events/stream`) and `partnerctl listen`
 * against the running stack (D290–D293): a live `order.completed` reaches
 * a local receiver through `listen`, signed with the local secret, as the
 * partner's verifier (ours and the official Standard Webhooks library)
 * expects; a stream resumes after `Last-Event-ID`; and what a stream
 * refuses, it refuses before it starts, in the error envelope.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { api as callApi, env, type ErrorBody } from './support/api';
import { GOOD_CARD, payCheckout } from './support/hosted-checkout';
import { inventoryClient, issueKey, newOrganisation, operatorContext, uniqueSlug, type InventoryClient } from './support/operator';
import { partnerAccepts } from './support/webhooks';
import { Receiver, waitFor } from '../services/webhooks/test/support';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '..');
const LOCAL_SECRET = 'whsec_' + 'L0calListenSecret0123456789abcde'.slice(0, 32);

let org: { id: number; key: string };
let inventory: InventoryClient;
let slug: string;
let typeId: number;

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });

/** A paid order: one checkout session through the hosted checkout. */
async function buy(email: string): Promise<string> {
  const session = await api<{ id: string; checkout_url: string }>('/checkout_sessions', {
    method: 'POST',
    body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 1 }] },
  });
  expect(session.status).toBe(201);
  expect((await payCheckout(session.body.checkout_url, { email, first_name: 'Ann', last_name: 'Lee', ...GOOD_CARD })).status).toBe(303);
  return session.body.id;
}

interface StreamedMessage {
  id: string;
  event: { id: string; type: string; data: { object: Record<string, unknown> } };
}

/** An open stream, read message by message. */
const opened = new Set<Stream>();

class Stream {
  readonly messages: StreamedMessage[] = [];
  private readonly controller = new AbortController();
  private buffer = '';

  static async open(headers: Record<string, string> = {}, query = '', key = org.key): Promise<{ status: number; stream?: Stream; body?: ErrorBody; contentType: string | null }> {
    const stream = new Stream();
    opened.add(stream);
    const response = await fetch(`${env('BASE_URL')}/webhook_events/stream${query}`, {
      headers: { Authorization: `Bearer ${key}`, ...headers },
      signal: stream.controller.signal,
    });
    const contentType = response.headers.get('content-type');
    if (response.status !== 200) return { status: response.status, body: (await response.json()) as ErrorBody, contentType };
    void stream.read(response.body!);
    return { status: 200, stream, contentType };
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const frame = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (id !== undefined && data !== undefined) this.messages.push({ id, event: JSON.parse(data) as StreamedMessage['event'] });
        }
      }
    } catch {
      // Aborted by close().
    }
  }

  async about(orderId: string, type = 'order.completed'): Promise<StreamedMessage> {
    let found: StreamedMessage | undefined;
    await waitFor(() => (found = this.messages.find((message) => message.event.type === type && message.event.data.object.id === orderId)) !== undefined, 30_000, `${type} for ${orderId} on the stream`);
    return found!;
  }

  close(): void {
    this.controller.abort();
  }
}

beforeAll(async () => {
  org = await newOrganisation(['orders:write', 'orders:read', 'events:read', 'webhooks:manage']);
  inventory = inventoryClient();
  const ctx = operatorContext(org.id);
  slug = uniqueSlug('stream');
  await inventory.upsertEvent({ fields: { slug, title: 'Stream Night', startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: 50n } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  typeId = Number(type.id);
}, 30_000);

afterAll(() => {
  for (const stream of opened) stream.close();
  inventory?.close();
});

describe('partnerctl listen', () => {
  let receiver: Receiver;
  let listener: ChildProcessWithoutNullStreams;
  let output = '';

  beforeAll(async () => {
    receiver = await new Receiver().start();
    listener = spawn(
      process.execPath,
      ['services/cli/dist/main.js', 'listen', '--forward-to', `${receiver.url}/local-hooks`, '--secret', LOCAL_SECRET, '--base-url', env('BASE_URL')],
      { cwd: ROOT, env: { ...process.env, PARTNER_API_KEY: org.key } },
    );
    listener.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    listener.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('Ready!'), 20_000, 'partnerctl listen to connect');
  });

  afterAll(async () => {
    listener?.kill('SIGINT');
    await receiver?.stop();
  });

  it('forwards a live order.completed to a local receiver, signed with the local secret', async () => {
    expect(output).toContain(`Your local signing secret is ${LOCAL_SECRET}`);
    const orderId = await buy('listen@example.com');

    await waitFor(() => receiver.requests.some((request) => request.body.includes(`"id":"${orderId}"`) && request.body.includes('"order.completed"')), 30_000, 'the forwarded order.completed');
    const request = receiver.requests.find((entry) => entry.body.includes(`"id":"${orderId}"`) && entry.body.includes('"order.completed"'))!;
    expect(request.path).toBe('/local-hooks');
    const event = JSON.parse(request.body) as StreamedMessage['event'];
    expect(event.type).toBe('order.completed');
    const order = await api(`/orders/${orderId}`);
    expect(event.data.object).toEqual(order.body);

    // The partner's verifier works unchanged: the spec's header and the Standard Webhooks ones.
    expect(partnerAccepts(String(request.headers['service-signature']), request.body, LOCAL_SECRET)).toBe(true);
    expect(partnerAccepts(String(request.headers['service-signature']), request.body, 'whsec_someoneElsesSecret0123456789ab')).toBe(false);
    expect(
      new Webhook(LOCAL_SECRET).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }),
    ).toEqual(event);
    expect([request.headers['service-event-id'], request.headers['service-event-type']]).toEqual([event.id, 'order.completed']);

    // And it says so as it goes, like stripe listen.
    await waitFor(() => output.includes(`<--  [204] POST ${receiver.url}/local-hooks [${event.id}]`) || output.includes(`<--  [200] POST ${receiver.url}/local-hooks [${event.id}]`), 10_000, 'the answer printed');
    expect(output).toContain(`--> order.completed [${event.id}]`);
  });
});

describe('GET /webhook_events/stream', () => {
  it('sends each event as it is stored, the body as a delivery carries it, and resumes after Last-Event-ID', async () => {
    const opened = await Stream.open();
    expect([opened.status, opened.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const stream = opened.stream!;
    const first = await buy('first@example.com');
    const second = await buy('second@example.com');
    const firstMessage = await stream.about(first);
    const secondMessage = await stream.about(second);
    stream.close();
    expect(firstMessage.id).toBe(firstMessage.event.id);
    expect(secondMessage.event.data.object).toEqual((await api(`/orders/${second}`)).body);

    // Resuming after whichever of the two the stream sent first (the feed's order is the order they
    // were stored in, which two orders paid close together need not keep): the other comes again, it does not.
    const [earlier, later] = [firstMessage, secondMessage].sort((a, b) => stream.messages.indexOf(a) - stream.messages.indexOf(b));
    const resumed = (await Stream.open({ 'Last-Event-ID': earlier!.id })).stream!;
    const again = await resumed.about(String(later!.event.data.object.id));
    resumed.close();
    expect(again.event).toEqual(later!.event);
    expect(resumed.messages.map((message) => message.id)).not.toContain(earlier!.id);
  });

  it('keeps to one type when asked', async () => {
    const stream = (await Stream.open({}, '?type=ticket.issued')).stream!;
    const orderId = await buy('typed@example.com');
    await waitFor(() => stream.messages.some((message) => (message.event.data.object as { order_id?: string }).order_id === orderId), 30_000, 'the ticket.issued of the order');
    stream.close();
    expect(new Set(stream.messages.map((message) => message.event.type))).toEqual(new Set(['ticket.issued']));
  });

  it('refuses, before it starts, a key without webhooks:manage, a bad Last-Event-ID or type, and a sixth stream', async () => {
    const reader = await issueKey(org.id, ['events:read']);
    const unscoped = await fetch(`${env('BASE_URL')}/webhook_events/stream`, { headers: { Authorization: `Bearer ${reader}` } });
    expect([unscoped.status, ((await unscoped.json()) as ErrorBody).error.code]).toEqual([403, 'insufficient_scope']);

    const badId = await Stream.open({ 'Last-Event-ID': 'nope' });
    expect([badId.status, badId.body?.error.code, badId.body?.error.param]).toEqual([400, 'parameter_invalid', 'Last-Event-ID']);
    const badType = await Stream.open({}, '?type=order.exploded');
    expect([badType.status, badType.body?.error.code, badType.body?.error.param]).toEqual([400, 'parameter_invalid', 'type']);

    // An organisation of its own, so no other test's stream counts.
    const own = await newOrganisation(['webhooks:manage']);
    const open = await Promise.all(Array.from({ length: 5 }, () => Stream.open({}, '', own.key)));
    try {
      expect(open.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200]);
      const sixth = await Stream.open({}, '', own.key);
      expect([sixth.status, sixth.body?.error.code]).toEqual([429, 'rate_limited']);
    } finally {
      for (const entry of open) entry.stream?.close();
    }
    // A closed stream frees its place.
    await waitFor(async () => {
      const next = await Stream.open({}, '', own.key);
      next.stream?.close();
      return next.status === 200;
    }, 10_000, 'a place after the streams closed');
  });
});
