/**
 * The waiting list's customer side against real inventory, tickets and
 * orders servers (PostgreSQL, Redis, Kafka): the public join page, and a
 * waiting-list offer becoming an ordinary checkout session on its own hold,
 * paid on the hosted checkout.
 */
import type { RequestContext } from '@partner-api/shared';
import { Backends, newOrganisation, type OrdersClient } from './support';

jest.setTimeout(60_000);

const backends = new Backends();
let orders: Awaited<ReturnType<Backends['startOrders']>>;
let client: OrdersClient;
let ctx: RequestContext;

beforeAll(async () => {
  await backends.start();
  orders = await backends.startOrders({ WAITLIST_JOINS_PER_WINDOW: '6' });
  client = orders.client;
  ctx = newOrganisation();
}, 60_000);

afterAll(async () => {
  client?.close();
  await backends.stop();
});

const page = (path: string, form?: Record<string, string>) =>
  fetch(`http://127.0.0.1:${orders.running.checkoutPort}${path}`, {
    method: form ? 'POST' : 'GET',
    headers: form ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: 'manual',
  });

/** An event whose every ticket a checkout session holds: the session id. */
async function soldOut(capacity: number) {
  const event = await backends.eventOnSale(ctx, capacity, '30.00');
  const session = await client.createCheckoutSession({ eventIdOrSlug: event.slug, items: [{ ticketTypeId: event.typeId, quantity: capacity }] }, ctx);
  return { ...event, sessionId: session.id! };
}

const entries = async (slug: string) => (await backends.inventoryClient.listWaitlist({ eventIdOrSlug: slug }, ctx)).data;

describe('the join page', () => {
  it('shows a labelled form for a published event, with the hosted checkout’s headers', async () => {
    const event = await soldOut(2);
    const response = await page(`/waitlist/${ctx.organisationId}/${event.eventId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('<h1>Refund Night</h1>');
    expect(html).toContain(`<option value="${event.typeId}">GA (sold out, up to 10 per order)</option>`);
    expect(html).toMatch(/<label>Email<input type="email" name="email"/);
    expect(html).toMatch(/<label>How many tickets<input type="number" name="quantity"/);
    expect((await page(`/waitlist/${ctx.organisationId}/999999999`)).status).toBe(404);
    expect((await page(`/waitlist/${ctx.organisationId}/not-an-id`)).status).toBe(404);
    // Another organisation's address for the event finds nothing.
    expect((await page(`/waitlist/${ctx.organisationId + 1}/${event.eventId}`)).status).toBe(404);
  });

  it('re-renders the form with the error tied to its field, and joins once per email', async () => {
    const event = await soldOut(2);
    const bad = await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '2', email: '<script>@x' });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('role="alert" id="join-error"');
    expect(html).toMatch(/name="email"[^>]*value="&lt;script&gt;@x" aria-invalid="true"/);
    expect((await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: 'lots', email: 'a@example.com' })).status).toBe(400);
    expect((await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '11', email: 'a@example.com' })).status).toBe(400);

    const joined = await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '2', email: 'wait@example.com' });
    expect(joined.status).toBe(200);
    expect(await joined.text()).toContain('You are on the waiting list for 2 tickets. We will email wait@example.com');
    await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '1', email: 'WAIT@example.com' });
    expect((await entries(event.slug)).map((entry) => [entry.email, entry.quantity, entry.state])).toEqual([['wait@example.com', 2, 'waiting']]);
  });
});

describe('an offer', () => {
  it('opens as an ordinary checkout session on its hold, and paying it completes the order from the list', async () => {
    const event = await soldOut(2);
    await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '2', email: 'wait@example.com' });
    // The partner's session lapses or is abandoned: its tickets go to the list, not back on sale.
    await backends.inventoryClient.releaseHold({ holdId: event.sessionId }, ctx);
    expect(await backends.available(ctx, event.slug)).toBe(0);
    let offered = (await entries(event.slug))[0]!;
    for (const deadline = Date.now() + 10_000; offered.state !== 'offered'; offered = (await entries(event.slug))[0]!) {
      if (Date.now() > deadline) throw new Error('no offer was made');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The email's link opens the offer's session and sends the customer to it.
    const link = await page(`/waitlist/${ctx.organisationId}/offers/${offered.holdId}`);
    expect([link.status, link.headers.get('location')]).toEqual([303, `/checkout/${offered.holdId}`]);
    const checkout = await page(`/checkout/${offered.holdId}`);
    expect(checkout.status).toBe(200);
    const html = await checkout.text();
    expect(html).toContain('data-testid="total">$60.00<');
    expect(html).toContain('value="wait@example.com"');
    // A session of the web channel: open on the offer's hold until the offer ends, and not the partner's to see (D259).
    const sessionRow = async () =>
      (await backends.ordersDb.query('SELECT status, expires_at, total_cents, sales_channel, channel_origin FROM checkout_sessions WHERE id = $1', [offered.holdId])).rows[0];
    const session = await sessionRow();
    expect(session).toEqual({ status: 'open', expires_at: new Date(offered.offerExpiresAt!), total_cents: '6000', sales_channel: 'web', channel_origin: null });
    await expect(client.getCheckoutSession({ id: offered.holdId! }, ctx)).rejects.toMatchObject({ code: 'resource_missing' });
    // Following the link again changes nothing.
    expect((await page(`/waitlist/${ctx.organisationId}/offers/${offered.holdId}`)).status).toBe(303);
    expect(await sessionRow()).toEqual(session);

    const paid = await page(`/checkout/${offered.holdId}/pay`, { email: 'wait@example.com', first_name: 'Wai', last_name: 'Ting', card_name: 'Wai Ting', card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123' });
    expect(paid.status).toBe(303);
    const order = await client.getOrder({ id: offered.holdId! }, ctx);
    expect(order.tickets).toHaveLength(2);
    expect([order.salesChannel, order.channelOrigin]).toEqual(['web', undefined]);
    for (const deadline = Date.now() + 10_000; (await entries(event.slug))[0]!.state !== 'purchased'; ) {
      if (Date.now() > deadline) throw new Error('the entry was not marked purchased');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await backends.available(ctx, event.slug)).toBe(0);
  });

  it('is not found for an id that is no live offer, and opens no session', async () => {
    const event = await soldOut(1);
    const unknown = '6f1c2d4e-0000-4000-8000-000000000001';
    expect((await page(`/waitlist/${ctx.organisationId}/offers/${unknown}`)).status).toBe(404);
    expect((await page(`/checkout/${unknown}`)).status).toBe(404);
    // A partner's own session is no offer: the link refuses it, its own address works as usual.
    expect((await page(`/waitlist/${ctx.organisationId}/offers/${event.sessionId}`)).status).toBe(404);
    expect((await page(`/checkout/${event.sessionId}`)).status).toBe(200);
    expect((await client.getCheckoutSession({ id: event.sessionId }, ctx)).status).toBe('open');
  });
});

describe('abuse', () => {
  it('limits joins per caller address, answering 429', async () => {
    const event = await soldOut(1);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      statuses.push((await page(`/waitlist/${ctx.organisationId}/${event.eventId}`, { ticket_type_id: String(event.typeId), quantity: '1', email: `many-${i}@example.com` })).status);
    }
    // The suite's earlier joins from this address count too: the window allows 6 in all.
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200 || status === 400 || status === 429)).toBe(true);
    expect((await page(`/waitlist/${ctx.organisationId}/${event.eventId}`)).status).toBe(200);
  });

  it('counts an address’s joins across every orders process: spread over two, they are refused once the total reaches the limit', async () => {
    // Orders processes on one Redis, as pods are; their counts are apart from the suite's other joins.
    const pods: Array<Awaited<ReturnType<Backends['startOrders']>>> = [];
    const start = async () => {
      pods.push(await backends.startOrders({ WAITLIST_JOINS_PER_WINDOW: '3' }, { joinCountsPrefix: `${backends.joinCountsPrefix}spread:` }));
      return pods.at(-1)!;
    };
    const event = await soldOut(1);
    const join = (pod: (typeof pods)[number], i: number) =>
      fetch(`http://127.0.0.1:${pod.running.checkoutPort}/waitlist/${ctx.organisationId}/${event.eventId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ticket_type_id: String(event.typeId), quantity: '1', email: `spread-${i}@example.com` }).toString(),
      });
    try {
      const two = [await start(), await start()];
      const answers: Array<[number, string | null]> = [];
      let refused: Response | undefined;
      for (let i = 0; i < 5; i += 1) {
        const response = await join(two[i % 2]!, i);
        answers.push([response.status, response.headers.get('ratelimit-remaining')]);
        if (response.status === 429) refused = response;
      }
      // Counted in each process, all five joined: each process allowed 3.
      expect(answers).toEqual([[200, '2'], [200, '1'], [200, '0'], [429, '0'], [429, '0']]);
      expect((await entries(event.slug)).map((entry) => entry.email)).toEqual(['spread-0@example.com', 'spread-1@example.com', 'spread-2@example.com']);
      // The refusal the customer saw before: the page, the draft-6 headers and Retry-After.
      expect(refused!.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await refused!.text()).toContain('You have tried to join too often.');
      expect(refused!.headers.get('ratelimit-policy')).toBe('3;w=600');
      expect(refused!.headers.get('ratelimit-limit')).toBe('3');
      expect(Number(refused!.headers.get('ratelimit-reset'))).toBeGreaterThan(590);
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(590);

      // A process started afterwards (a restart, one more pod) does not start the count again.
      expect((await join(await start(), 5)).status).toBe(429);
    } finally {
      for (const pod of pods) pod.client.close();
    }
  });

  it('lets joins through uncounted when Redis cannot be reached, and stays ready: nothing else of orders needs it', async () => {
    // Nothing listens on port 1; each command gives up after its retries.
    const pod = await backends.startOrders({ REDIS_URL: 'redis://127.0.0.1:1', WAITLIST_JOINS_PER_WINDOW: '1' });
    try {
      const event = await soldOut(1);
      const statuses: number[] = [];
      const slowest = { ms: 0 };
      for (let i = 0; i < 2; i += 1) {
        const startedAt = Date.now();
        const response = await fetch(`http://127.0.0.1:${pod.running.checkoutPort}/waitlist/${ctx.organisationId}/${event.eventId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ticket_type_id: String(event.typeId), quantity: '1', email: `no-redis-${i}@example.com` }).toString(),
        });
        statuses.push(response.status);
        slowest.ms = Math.max(slowest.ms, Date.now() - startedAt);
      }
      // With a limit of 1 and the counts in reach, the second would be 429.
      expect(statuses).toEqual([200, 200]);
      // Each count gave up after its command timeout, not after the client's reconnection attempts (about 4 s a join).
      expect(slowest.ms).toBeLessThan(2_000);
      expect((await entries(event.slug)).map((entry) => entry.email)).toEqual(['no-redis-0@example.com', 'no-redis-1@example.com']);
      expect(await pod.running.runtime.lifecycle.readiness()).toMatchObject({ ready: true });
    } finally {
      pod.client.close();
    }
  });
});
