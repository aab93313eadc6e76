import { api as callApi, env, type ErrorBody } from './support/api';
import { inventoryClient, issueKey, newOrganisation, operatorContext, publishedEvent, uniqueSlug, type InventoryClient } from './support/operator';

interface ApiEvent {
  id: number;
  slug: string;
  title: string;
  status: string;
  starts_at: string;
  ends_at: string | null;
  updated_at: string;
  venue: { id: number } | null;
  ticketing: { min_price: string | null; max_price: string | null; tickets_remaining: number | null };
}
interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const DEMO_ORG = () => Number(env('DEMO_ORGANISATION_ID'));
let inventory: InventoryClient;
let demoKey: string;

/** The demo organisation's data, through a key of its own with room for this many requests. */
const api: typeof callApi = (path, options = {}) => callApi(path, { ...options, key: options.key ?? demoKey });

beforeAll(async () => {
  inventory = inventoryClient();
  demoKey = await issueKey(DEMO_ORG());
});
afterAll(() => inventory.close());

/** Every page of a listing, following next_cursor. */
async function walk<T>(path: string, key?: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const { status, body }: { status: number; body: List<T> } = await api<List<T>>(`${path}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(status).toBe(200);
    rows.push(...body.data);
    cursor = body.next_cursor;
    expect(body.has_more).toBe(cursor !== null);
  } while (cursor);
  return rows;
}

const expectError = async (path: string, status: number, code: string, param?: string | null) => {
  const response = await api<ErrorBody>(path);
  expect(response.status).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
};

describe('GET /events', () => {
  it('lists published, upcoming events by start time by default', async () => {
    const events = await walk<ApiEvent>('/events?limit=5');
    expect(events.length).toBeGreaterThanOrEqual(7);
    expect(events.every((event) => event.status === 'published')).toBe(true);
    const starts = events.map((event) => event.starts_at);
    expect(starts).toEqual([...starts].sort());
    expect(events.map((event) => event.slug)).toEqual(expect.arrayContaining(['midnight-oil-reunion', 'jazz-in-the-park']));
    expect(events.map((event) => event.slug)).not.toContain('winter-blues-2026');
  });

  it.each([
    ['draft', 'spring-racing-lunch'],
    ['pending_review', 'festival-of-lights'],
    ['cancelled', 'the-cat-empire-cancelled'],
  ])('filters by status %s', async (status, slug) => {
    const events = await walk<ApiEvent>(`/events?status=${status}&time=all`);
    expect(events.map((event) => event.slug)).toContain(slug);
    expect(events.every((event) => event.status === status)).toBe(true);
  });

  it('lists ended events among past ones, newest first', async () => {
    const past = await walk<ApiEvent>('/events?status=all&time=past');
    expect(past.map((event) => event.slug)).toContain('winter-blues-2026');
    expect(past.every((event) => event.status === 'ended' || event.status === 'cancelled')).toBe(true);
    const starts = past.map((event) => event.starts_at);
    expect(starts).toEqual([...starts].sort().reverse());
    const ended = await walk<ApiEvent>('/events?status=ended&time=all');
    expect(ended.map((event) => event.slug)).toContain('winter-blues-2026');
  });

  it('lists every status with status=all&time=all, ascending', async () => {
    const events = await walk<ApiEvent>('/events?status=all&time=all&limit=100');
    const statuses = new Set(events.map((event) => event.status));
    expect([...statuses].sort()).toEqual(['cancelled', 'draft', 'ended', 'pending_review', 'published']);
    const starts = events.map((event) => event.starts_at);
    expect(starts).toEqual([...starts].sort());
  });

  it('searches title and summary by word prefixes', async () => {
    expect((await walk<ApiEvent>('/events?q=midnight')).map((event) => event.slug)).toEqual(['midnight-oil-reunion']);
    expect((await walk<ApiEvent>('/events?q=Midn')).map((event) => event.slug)).toEqual(['midnight-oil-reunion']);
    expect((await walk<ApiEvent>('/events?q=oil%20reunion')).map((event) => event.slug)).toEqual(['midnight-oil-reunion']);
    expect(await walk<ApiEvent>('/events?q=zzzznothing')).toEqual([]);
    expect(await walk<ApiEvent>('/events?q=%21%21%21')).toEqual([]);
  });

  it('returns only events changed at or after updated_since', async () => {
    const slug = uniqueSlug('updated-since');
    const created = await inventory.upsertEvent(
      { fields: { slug, title: 'Fresh Show', startsAt: '2027-03-01T09:00:00Z', timezone: 'Australia/Sydney' } },
      operatorContext(DEMO_ORG()),
    );
    await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, operatorContext(DEMO_ORG()));
    const since = encodeURIComponent(new Date(Date.now() - 60_000).toISOString());
    const recent = await walk<ApiEvent>(`/events?updated_since=${since}`);
    expect(recent.map((event) => event.id)).toContain(Number(created.id));
    expect(recent.every((event) => event.updated_at >= new Date(Date.now() - 61_000).toISOString().slice(0, 19))).toBe(true);
    expect(await walk<ApiEvent>('/events?updated_since=2099-01-01T00:00:00Z')).toEqual([]);
  });

  it("moves an event's updated_at when its ticket types, pools or sell-out change it, and when a sales window opens (D234)", async () => {
    const org = await newOrganisation(['events:read', 'orders:write']);
    const ctx = operatorContext(org.id);
    const { slug, poolId, typeId } = await publishedEvent(inventory, org.id, { slugPrefix: 'moving', title: 'Moving Show', capacity: 1 });
    const read = async () => (await api<ApiEvent & { sold_out: boolean }>(`/events/${slug}`, { key: org.key })).body;
    const changedSince = async (since: string) => (await walk<ApiEvent>(`/events?updated_since=${encodeURIComponent(since)}`, org.key)).map((event) => event.slug);
    // The API shows whole seconds: a change is told apart from the last one a second later.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 1_050));

    let last = await read();
    const step = async (what: string, change: () => Promise<unknown>) => {
      await pause();
      await change();
      const now = await read();
      expect({ what, moved: now.updated_at > last.updated_at }).toEqual({ what, moved: true });
      expect(await changedSince(now.updated_at)).toEqual([slug]);
      last = now;
      return now;
    };
    expect((await step('price', () => inventory.upsertTicketType({ id: typeId, fields: { price: '45.00' } }, ctx))).ticketing.min_price).toBe('45.00');
    expect((await step('capacity', () => inventory.upsertPool({ id: poolId, fields: { capacity: 2n } }, ctx))).ticketing.tickets_remaining).toBe(2);
    const soldOut = await step('sell-out', async () => {
      const checkout = await api('/checkout_sessions', { method: 'POST', key: org.key, body: { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 2 }] } });
      expect(checkout.status).toBe(201);
    });
    expect(soldOut.sold_out).toBe(true);

    // Time alone: a second ticket type whose sales open in 1 s; the catalog clock stamps the event once the window opens.
    const later = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Balcony', capacity: 5n } }, ctx);
    await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'Late', price: '30.00', bookingFee: '0.00', maxPerOrder: 4, poolIds: [later.id], saleStartsAt: new Date(Date.now() + 1_000).toISOString() } }, ctx);
    const beforeOpening = await read();
    const opensAt = Date.now() + 1_000;
    const deadline = Date.now() + 20_000;
    let stamped = beforeOpening;
    while (stamped.updated_at === beforeOpening.updated_at && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      stamped = await read();
    }
    expect(stamped.updated_at > beforeOpening.updated_at).toBe(true);
    expect(Date.parse(stamped.updated_at)).toBeGreaterThanOrEqual(opensAt - 1_000);
  }, 40_000);

  it('answers a polled page the same while nothing changes, and shows a sale and a catalog edit at the next poll', async () => {
    const org = await newOrganisation(['events:read', 'orders:write']);
    const ctx = operatorContext(org.id);
    const { slug, typeId } = await publishedEvent(inventory, org.id, { slugPrefix: 'polled', title: 'Polled Show', capacity: 5 });
    // The gateway keeps the page's bytes and asks inventory for them by their tag (D355): what it answers must never be stale.
    const poll = async () => {
      const response = await fetch(`${env('BASE_URL')}/events?status=all&time=all`, { headers: { authorization: `Bearer ${org.key}` } });
      expect(response.status).toBe(200);
      const body = await response.text();
      const event = (JSON.parse(body) as { data: Array<ApiEvent & { title: string }> }).data[0]!;
      return { body, remaining: event.ticketing.tickets_remaining, title: event.title };
    };
    const first = await poll();
    expect(first).toMatchObject({ remaining: 5, title: 'Polled Show' });
    expect((await poll()).body).toBe(first.body);
    const checkout = await api('/checkout_sessions', { method: 'POST', key: org.key, body: { event_id: slug, items: [{ ticket_type_id: Number(typeId), quantity: 2 }] } });
    expect(checkout.status).toBe(201);
    const afterSale = await poll();
    expect(afterSale.remaining).toBe(3);
    expect((await poll()).body).toBe(afterSale.body);
    await inventory.upsertEvent({ idOrSlug: slug, fields: { title: 'Polled Show (moved)' } }, ctx);
    expect(await poll()).toMatchObject({ remaining: 3, title: 'Polled Show (moved)' });
  });

  it.each([
    ['/events?status=live', 'status'],
    ['/events?time=tomorrow', 'time'],
    ['/events?limit=0', 'limit'],
    ['/events?limit=101', 'limit'],
    ['/events?limit=ten', 'limit'],
    ['/events?cursor=forged', 'cursor'],
    ['/events?updated_since=yesterday', 'updated_since'],
  ])('answers %s with 400 parameter_invalid', async (path, param) => {
    await expectError(path, 400, 'parameter_invalid', param);
  });

  it('refuses a cursor from one listing in another', async () => {
    const first = await api<List<ApiEvent>>('/events?limit=1');
    const cursor = encodeURIComponent(first.body.next_cursor!);
    await expectError(`/events?limit=1&status=all&cursor=${cursor}`, 400, 'parameter_invalid', 'cursor');
    const other = await newOrganisation();
    const response = await api<ErrorBody>(`/events?limit=1&cursor=${cursor}`, { key: other.key });
    expect(response.body.error).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
  });

  it("never shows another organisation's events", async () => {
    const events = await walk<ApiEvent>('/events?status=all&time=all&limit=100');
    expect(events.some((event) => event.slug.startsWith('sx-'))).toBe(false);
  });

  it('walks 1,000 events at limit 7 while a writer inserts and updates, seeing each existing event once', async () => {
    const organisation = await newOrganisation();
    const ctx = operatorContext(organisation.id);
    const base = Date.parse('2027-06-01T00:00:00Z');
    const ids: string[] = [];
    for (let batch = 0; batch < 20; batch += 1) {
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          inventory.upsertEvent(
            {
              fields: {
                slug: uniqueSlug('walk'),
                title: `Walk ${batch * 50 + i}`,
                // Several events share a start time: the id breaks the tie.
                startsAt: new Date(base + Math.floor((batch * 50 + i) / 3) * 3_600_000).toISOString(),
                timezone: 'Australia/Sydney',
              },
            },
            ctx,
          ),
        ),
      );
      ids.push(...created.map((event) => event.id.toString()));
    }

    let writing = true;
    const writer = (async () => {
      let n = 0;
      while (writing) {
        n += 1;
        await inventory.upsertEvent(
          { fields: { slug: uniqueSlug('walk-new'), title: `Inserted ${n}`, startsAt: new Date(base + Math.random() * 400 * 3_600_000).toISOString(), timezone: 'Australia/Sydney' } },
          ctx,
        );
        await inventory.upsertEvent({ idOrSlug: ids[Math.floor(Math.random() * ids.length)]!, fields: { title: `Updated ${n}` } }, ctx);
      }
      return n;
    })();
    let seen: ApiEvent[];
    try {
      seen = await walk<ApiEvent>('/events?status=all&time=all&limit=7', organisation.key);
    } finally {
      writing = false;
    }
    const writes = await writer;

    expect(writes).toBeGreaterThan(0);
    const counts = new Map<string, number>();
    for (const event of seen) counts.set(String(event.id), (counts.get(String(event.id)) ?? 0) + 1);
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
  }, 120_000);
});

describe('GET /events/{id}', () => {
  it('finds an event by id and by slug', async () => {
    const bySlug = await api<ApiEvent>('/events/courtney-barnett');
    expect(bySlug.status).toBe(200);
    const byId = await api<ApiEvent>(`/events/${bySlug.body.id}`);
    expect(byId.body).toEqual(bySlug.body);
  });

  it("hides another organisation's event by id and by slug", async () => {
    const other = await newOrganisation();
    const theirs = await inventory.upsertEvent(
      { fields: { slug: uniqueSlug('theirs'), title: 'Theirs', startsAt: '2027-01-01T00:00:00Z', timezone: 'UTC' } },
      operatorContext(other.id),
    );
    await expectError(`/events/${theirs.id}`, 404, 'resource_missing');
    await expectError(`/events/${theirs.slug}`, 404, 'resource_missing');
    await expectError('/events/sx-courtney-barnett', 404, 'resource_missing');
    await expectError('/events/999999999', 404, 'resource_missing');
  });
});

describe('GET /events/{id}/ticket_types', () => {
  it('returns every ticket type in one page with live availability and every status', async () => {
    const { status, body } = await api<List<Record<string, unknown>>>('/events/sunset-sessions/ticket_types');
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(new Set(body.data.map((type) => type.status))).toEqual(new Set(['on_sale', 'not_yet_on_sale', 'sale_ended', 'sold_out', 'hidden']));
    const general = body.data.find((type) => type.name === 'General Release')!;
    expect(general).toMatchObject({ object: 'ticket_type', price: '59.00', booking_fee: '3.00', currency: 'AUD', fees_included: true, capacity: 400, available: 390, seated: false });
  });

  it('shows multi-pool, seated and uncapped types', async () => {
    const barnett = await api<List<Record<string, unknown>>>('/events/courtney-barnett/ticket_types');
    expect(barnett.body.data.find((type) => type.name === 'Balcony Seated')).toMatchObject({ seated: true });
    const jazz = await api<List<Record<string, unknown>>>('/events/jazz-in-the-park/ticket_types');
    expect(jazz.body.data[0]).toMatchObject({ available: null, capacity: null, price: '0.00' });
    const event = await api<ApiEvent>('/events/jazz-in-the-park');
    expect(event.body.ticketing.tickets_remaining).toBeNull();
  });

  it('answers 404 for unknown or foreign events', async () => {
    await expectError('/events/no-such-event/ticket_types', 404, 'resource_missing');
    await expectError('/events/sx-sunset-sessions/ticket_types', 404, 'resource_missing');
  });
});

describe('GET /venues', () => {
  it("lists the organisation's venues by id, leaving removed ones out but still serving them by id", async () => {
    const ctx = operatorContext(DEMO_ORG());
    const venue = await inventory.upsertVenue(
      { fields: { name: 'Pop-up Hall', slug: uniqueSlug('popup'), line1: '1 Test St', locality: 'Hobart', state: 'TAS', postalCode: '7000', country: 'AU' } },
      ctx,
    );
    await inventory.upsertEvent(
      { fields: { slug: uniqueSlug('popup-show'), title: 'Pop-up Show', startsAt: '2027-02-01T09:00:00Z', timezone: 'Australia/Hobart', venueId: venue.id } },
      ctx,
    );
    const before = await walk<{ id: number }>('/venues?limit=2');
    expect(before.map((v) => v.id)).toContain(Number(venue.id));
    expect(before.map((v) => v.id)).toEqual([...before.map((v) => v.id)].sort((a, b) => a - b));

    await inventory.upsertVenue({ id: venue.id, fields: { removed: true } }, ctx);
    const after = await walk<{ id: number }>('/venues?limit=2');
    expect(after.map((v) => v.id)).not.toContain(Number(venue.id));
    const direct = await api<Record<string, unknown>>(`/venues/${venue.id}`);
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ object: 'venue', name: 'Pop-up Hall', address: { locality: 'Hobart', country: 'AU', line2: null } });
  });

  it('answers 404 for a venue none of the organisation events use', async () => {
    const unused = await inventory.upsertVenue(
      { fields: { name: 'Unused', slug: uniqueSlug('unused'), line1: '2 Test St', locality: 'Darwin', state: 'NT', postalCode: '0800', country: 'AU' } },
      operatorContext(DEMO_ORG()),
    );
    await expectError(`/venues/${unused.id}`, 404, 'resource_missing');
    await expectError('/venues/abc', 404, 'resource_missing', 'id');
    await expectError('/venues?limit=500', 400, 'parameter_invalid', 'limit');
  });
});
