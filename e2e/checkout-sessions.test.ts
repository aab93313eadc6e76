import { api as callApi, env, type ErrorBody } from './support/api';
import { inventoryClient, keyAdmin, operatorContext, ordersClient, uniqueSlug, type InventoryClient, type OrdersClient } from './support/operator';

const ORG = () => Number(env('DEMO_ORGANISATION_ID'));
let inventory: InventoryClient;
let orders: OrdersClient;
let liveKey: string;
let testKey: string;
let readOnlyKey: string;

interface Session {
  id: string | null;
  status: string;
  livemode: boolean;
  dry_run: boolean;
  checkout_url: string;
  expires_at: string | null;
  subtotal: string;
  total_fees: string;
  discount: string;
  total: string;
  items: Array<{ ticket_type_id: number; quantity: number; unit_price: string; total: string }>;
  customer: Record<string, string | null> | null;
  metadata: Record<string, string>;
  order_id: string | null;
}

/** A published event of the demo organisation with the ticket types these tests need. */
async function stage(capacity = 50) {
  const ctx = operatorContext(ORG());
  const slug = uniqueSlug('checkout');
  const event = await inventory.upsertEvent({ fields: { slug, title: 'Checkout Test', startsAt: new Date(Date.now() + 20 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const main = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Main', capacity: BigInt(capacity) } }, ctx);
  const balcony = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Balcony', capacity: 20n } }, ctx);
  const type = (name: string, fields: Record<string, unknown>) =>
    inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name, price: '59.50', bookingFee: '4.50', maxPerOrder: 10, poolIds: [main.id], ...fields } }, ctx);
  const ga = await type('GA', {});
  const group = await type('Group', { price: '200.00', bookingFee: '10.00', minPerOrder: 4, maxPerOrder: 8 });
  const seated = await type('Seated', { seated: true });
  const hidden = await type('Hidden', { hidden: true });
  const flexi = await type('Flexi', { poolIds: [main.id, balcony.id] });
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  const ids = { ga: Number(ga.id), group: Number(group.id), seated: Number(seated.id), hidden: Number(hidden.id), flexi: Number(flexi.id), balcony: Number(balcony.id) };
  return { slug, eventId: Number(event.id), ...ids };
}

const api: typeof callApi = (path, options = {}) => callApi(path, { ...options, key: options.key ?? liveKey });
const create = (body: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  api<Session>('/checkout_sessions', { method: 'POST', body, key: options.key, headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {} });
const availableOf = async (slug: string, name: string) =>
  ((await api<{ data: Array<{ name: string; available: number }> }>(`/events/${slug}/ticket_types`)).body.data.find((type) => type.name === name)!.available);

beforeAll(async () => {
  inventory = inventoryClient();
  orders = ordersClient();
  const issue = (mode: 'live' | 'test', scopes: string[]) =>
    keyAdmin(async (admin) => (await admin.issueKey({ organisationId: ORG(), name: 'checkout-e2e', mode, scopes, rateLimit: 100_000 })).secret);
  liveKey = await issue('live', ['orders:write', 'orders:read', 'events:read']);
  testKey = await issue('test', ['orders:write', 'orders:read', 'events:read']);
  readOnlyKey = await issue('live', ['orders:read']);
});
afterAll(() => {
  inventory.close();
  orders.close();
});

describe('POST /checkout_sessions', () => {
  it('holds tickets for a live key: 201 open, fee-inclusive totals, about 15 minutes, metadata as strings', async () => {
    const { slug, eventId, ga, flexi, balcony } = await stage();
    const { status, body } = await create({
      event_id: slug,
      items: [{ ticket_type_id: ga, quantity: 2 }, { ticket_type_id: flexi, quantity: 1, pool_id: balcony }, { ticket_type_id: ga, quantity: 1 }],
      customer: { email: 'sam@example.com', first_name: 'Sam' },
      metadata: { partner_ref: 'A-1', seats: 3, vip: true },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      object: 'checkout_session', status: 'open', livemode: true, dry_run: false, event_id: eventId, currency: 'AUD',
      subtotal: '238.00', total_fees: '18.00', discount: '0.00', total: '238.00', order_id: null,
      customer: { email: 'sam@example.com', first_name: 'Sam', last_name: null, phone: null },
      metadata: { partner_ref: 'A-1', seats: '3', vip: 'true' },
    });
    expect(body.items.map((item) => [item.ticket_type_id, item.quantity, item.total])).toEqual([[ga, 3, '178.50'], [flexi, 1, '59.50']]);
    expect(body.checkout_url).toBe(`http://127.0.0.1:4100/checkout/${body.id}`);
    const minutes = (Date.parse(body.expires_at!) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    expect(await availableOf(slug, 'GA')).toBe(47);

    const fetched = await api<Session>(`/checkout_sessions/${body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(body);
  });

  it('validates and prices a test-key request in full but holds nothing', async () => {
    const { slug, ga } = await stage(5);
    const { status, body } = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 5 }], coupon_code: undefined }, { key: testKey });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id: null, dry_run: true, livemode: false, expires_at: null, discount: '0.00', total: '297.50', status: 'open' });
    expect(body.checkout_url).toBe(`https://tickets.example.com/e/${slug}`);
    expect(await availableOf(slug, 'GA')).toBe(5);
    const over = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 6 }] }, { key: testKey });
    expect((over.body as unknown as ErrorBody).error.code).toBe('exceeds_availability');
  });

  it.each([
    ['no event_id', { items: [{ ticket_type_id: 1, quantity: 1 }] }, 400, 'parameter_missing', 'event_id'],
    ['no items', { event_id: 'x' }, 400, 'parameter_missing', 'items'],
    ['empty items', { event_id: 'x', items: [] }, 400, 'parameter_invalid', 'items'],
    ['21 lines', { event_id: 'x', items: Array.from({ length: 21 }, () => ({ ticket_type_id: 1, quantity: 1 })) }, 400, 'parameter_invalid', 'items'],
    ['quantity 0', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 0 }] }, 400, 'parameter_invalid', 'items[0].quantity'],
    ['quantity 101', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 101 }] }, 400, 'parameter_invalid', 'items[0].quantity'],
    ['a bad customer email', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], customer: { email: 'not-an-email' } }, 400, 'parameter_invalid', 'customer.email'],
    ['21 metadata keys', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'parameter_invalid', 'metadata'],
    ['a metadata key over 40 characters', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], metadata: { ['k'.repeat(41)]: 'v' } }, 400, 'parameter_invalid', null],
    ['a metadata value over 500 characters', { event_id: 'x', items: [{ ticket_type_id: 1, quantity: 1 }], metadata: { k: 'v'.repeat(501) } }, 400, 'parameter_invalid', 'metadata.k'],
  ])('refuses %s', async (_, body, status, code, param) => {
    const response = await create(body);
    expect(response.status).toBe(status);
    const error = (response.body as unknown as ErrorBody).error;
    expect(error.code).toBe(code);
    if (param !== null) expect(error.param).toBe(param);
  });

  it('answers every rule of the event and its ticket types with the spec code', async () => {
    const s = await stage(5);
    const draft = uniqueSlug('draft');
    await inventory.upsertEvent({ fields: { slug: draft, title: 'Draft', startsAt: '2027-09-01T00:00:00Z', timezone: 'UTC' } }, operatorContext(ORG()));
    const cases: Array<[unknown, number, string, string | null]> = [
      [{ event_id: 'no-such-event', items: [{ ticket_type_id: s.ga, quantity: 1 }] }, 404, 'resource_missing', 'event_id'],
      [{ event_id: 'sx-midnight-oil-reunion', items: [{ ticket_type_id: 1, quantity: 1 }] }, 404, 'resource_missing', 'event_id'],
      [{ event_id: s.slug, items: [{ ticket_type_id: 999_999_999, quantity: 1 }] }, 404, 'resource_missing', 'items[0].ticket_type_id'],
      [{ event_id: draft, items: [{ ticket_type_id: s.ga, quantity: 1 }] }, 422, 'event_not_on_sale', 'event_id'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.hidden, quantity: 1 }] }, 422, 'ticket_type_unavailable', 'items[0].ticket_type_id'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.seated, quantity: 1 }] }, 422, 'seat_selection_required', 'items[0].ticket_type_id'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.flexi, quantity: 1 }] }, 400, 'parameter_missing', 'items[0].pool_id'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.ga, quantity: 11 }] }, 422, 'exceeds_max_per_order', 'items[0].quantity'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.group, quantity: 2 }] }, 422, 'parameter_invalid', 'items[0].quantity'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.ga, quantity: 6 }] }, 422, 'exceeds_availability', 'items'],
      [{ event_id: s.slug, items: [{ ticket_type_id: s.ga, quantity: 1 }], coupon_code: 'NOPE' }, 400, 'parameter_invalid', 'coupon_code'],
    ];
    for (const [body, status, code, param] of cases) {
      const response = await create(body);
      expect({ body, status: response.status, code: (response.body as unknown as ErrorBody).error?.code, param: (response.body as unknown as ErrorBody).error?.param }).toEqual({ body, status, code, param });
    }
    // Nothing was held by any refused request, the refused coupon included.
    expect(await availableOf(s.slug, 'GA')).toBe(5);
  });

  it('needs orders:write to create and orders:read to read', async () => {
    const { slug, ga } = await stage();
    const denied = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 1 }] }, { key: readOnlyKey });
    expect(denied.status).toBe(403);
    expect((denied.body as unknown as ErrorBody).error.code).toBe('insufficient_scope');
    const created = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 1 }] });
    expect((await api(`/checkout_sessions/${created.body.id}`, { key: readOnlyKey })).status).toBe(200);
  });

  it('answers 404 for an unknown session or a malformed id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await api<ErrorBody>(`/checkout_sessions/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('resource_missing');
    }
  });
});

describe('coupons', () => {
  const coupon = (eventId: number, fields: Record<string, unknown>) =>
    orders.upsertCoupon({ coupon: { eventId: BigInt(eventId), ...fields } as never }, operatorContext(ORG()));

  it('takes a percentage off a live session, matching codes case-insensitively', async () => {
    const { slug, eventId, ga } = await stage();
    await coupon(eventId, { code: 'EARLY15', kind: 'percent', value: '15' });
    const { status, body } = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 2 }], coupon_code: 'early15' });
    expect(status).toBe(201);
    expect(body).toMatchObject({ subtotal: '119.00', discount: '17.85', total: '101.15', total_fees: '9.00' });
  });

  it('takes a fixed amount off, never below zero, and test keys check it without applying it', async () => {
    const { slug, eventId, ga } = await stage();
    await coupon(eventId, { code: 'TENOFF', kind: 'amount', value: '10.00' });
    expect((await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 1 }], coupon_code: 'TENOFF' })).body).toMatchObject({ discount: '10.00', total: '49.50' });
    await coupon(eventId, { code: 'HUGE', kind: 'amount', value: '500.00' });
    expect((await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 1 }], coupon_code: 'HUGE' })).body).toMatchObject({ discount: '59.50', total: '0.00' });
    expect((await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 1 }], coupon_code: 'TENOFF' }, { key: testKey })).body).toMatchObject({ discount: '0.00', total: '59.50' });
  });

  it('refuses a coupon outside its window, and releases the hold it would have taken', async () => {
    const { slug, eventId, ga } = await stage(5);
    await coupon(eventId, { code: 'PAST', kind: 'percent', value: '50', validUntil: '2020-01-01T00:00:00Z' });
    await coupon(eventId, { code: 'FUTURE', kind: 'percent', value: '50', validFrom: '2099-01-01T00:00:00Z' });
    for (const code of ['PAST', 'FUTURE']) {
      const response = await create({ event_id: slug, items: [{ ticket_type_id: ga, quantity: 5 }], coupon_code: code });
      expect((response.body as unknown as ErrorBody).error).toMatchObject({ code: 'parameter_invalid', param: 'coupon_code' });
    }
    expect(await availableOf(slug, 'GA')).toBe(5);
  });

  it("cannot be set on another organisation's event", async () => {
    await expect(
      orders.upsertCoupon({ coupon: { eventId: 999_999_999n, code: 'NOPE', kind: 'percent', value: '10' } as never }, operatorContext(ORG())),
    ).rejects.toMatchObject({ code: 'resource_missing' });
  });
});

describe('Idempotency-Key on POST /checkout_sessions', () => {
  it('runs exactly one of 50 concurrent identical requests; the others are 409s, byte-identical replays or shed before they ran', async () => {
    const { slug, ga } = await stage(100);
    const key = `idem-${Date.now()}-${Math.random()}`;
    const body = { event_id: slug, items: [{ ticket_type_id: ga, quantity: 2 }] };
    const responses = await Promise.all(Array.from({ length: 50 }, () => create(body, { idempotencyKey: key })));
    expect(await availableOf(slug, 'GA')).toBe(98);
    const created = responses.filter((response) => response.status === 201);
    const conflicts = responses.filter((response) => response.status === 409);
    // Admission control may turn some away before anything runs (429 with Retry-After, not remembered under the key: D441, D445).
    const shed = responses.filter((response) => response.status === 429 && (response.body as unknown as ErrorBody).error.code === 'rate_limited' && response.headers.get('retry-after') !== null);
    expect(created.length + conflicts.length + shed.length).toBe(50);
    expect(new Set(created.map((response) => JSON.stringify(response.body))).size).toBe(1);
    const replay = await create(body, { idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(created[0]!.body));
    const reused = await create({ ...body, items: [{ ticket_type_id: ga, quantity: 3 }] }, { idempotencyKey: key });
    expect(reused.status).toBe(422);
    expect((reused.body as unknown as ErrorBody).error.code).toBe('idempotency_key_reused');
    expect(await availableOf(slug, 'GA')).toBe(98);
  });
});
