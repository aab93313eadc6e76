/**
 * `partnerctl venue`, `event`, `pool`, `ticket-type` and `coupon` against
 * the running stack: a venue, an event, its pool and ticket type made and
 * changed from the terminal are what the partner API then shows, each
 * status command moves the event as GET /events/{id} reports it, and a
 * coupon set from the terminal takes its discount off a checkout session.
 * Bad input gets one clear line on stderr, exit code 1 and no write.
 */
import { api as callApi, type ErrorBody } from './support/api';
import { newOrganisation, uniqueSlug } from './support/operator';
import { expectRefused, partnerctl, type CliRun } from './support/partnerctl';

// Each partnerctl run starts a Node process: a few seconds each on a loaded 2-core machine.
jest.setTimeout(120_000);

interface Event {
  id: number;
  slug: string;
  title: string;
  status: string;
  sold_out: boolean;
  venue: { id: number; name: string } | null;
  categories: string[];
}
interface TicketType {
  id: number;
  pool_id: number;
  name: string;
  price: string;
  booking_fee: string;
  gst_applies: boolean;
  max_per_order: number;
  available: number | null;
  capacity: number | null;
}

let org: { id: number; key: string };
let orgId: string;
let venueId: number;
let slug: string;
let eventId: number;
let poolId: number;
let typeId: number;

const api: typeof callApi = (route, options = {}) => callApi(route, { ...options, key: options.key ?? org.key });
const ticketTypes = async () => (await api<{ data: TicketType[] }>(`/events/${slug}/ticket_types`)).body.data;

/** A command that succeeded: its output, parsed (catalog commands print one indented JSON object). */
function printed<T>(run: CliRun): T {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as T;
}

beforeAll(async () => {
  org = await newOrganisation(['events:read', 'orders:write']);
  orgId = String(org.id);
  slug = uniqueSlug('cli-event');
});

describe('partnerctl venue, event, pool and ticket-type', () => {
  it('makes a venue, a draft event at it, a pool and a ticket type; publishing shows them through the API', async () => {
    const venue = printed<{ id: number; name: string; address: { formatted: string } }>(
      await partnerctl('venue', 'create', '--org', orgId, '--name', 'Terminal Hall', '--slug', uniqueSlug('cli-venue'), '--line1', '1 Shell St',
        '--locality', 'Sydney', '--state', 'NSW', '--postal-code', '2000', '--country', 'AU', '--lat', '-33.86', '--lng', '151.21'),
    );
    venueId = venue.id;
    expect(venue).toMatchObject({ name: 'Terminal Hall', lat: -33.86, lng: 151.21 });

    const startsAt = new Date(Date.now() + 14 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const draft = printed<Event>(
      await partnerctl('event', 'create', '--org', orgId, '--slug', slug, '--title', 'Terminal Live', '--starts-at', startsAt,
        '--timezone', 'Australia/Sydney', '--venue-id', String(venueId), '--categories', 'music, rock'),
    );
    eventId = draft.id;
    expect(draft).toMatchObject({ slug, title: 'Terminal Live', status: 'draft', starts_at: startsAt, categories: ['music', 'rock'] });

    const pool = printed<{ id: number; name: string }>(await partnerctl('pool', 'create', '--org', orgId, '--event', slug, '--name', 'Floor', '--capacity', '50'));
    poolId = pool.id;
    const type = printed<TicketType>(
      await partnerctl('ticket-type', 'create', '--org', orgId, '--event', slug, '--name', 'GA', '--price', '45.00', '--booking-fee', '2.50',
        '--max-per-order', '6', '--gst-applies', 'true', '--pool-ids', String(poolId)),
    );
    typeId = type.id;
    expect(type).toMatchObject({ pool_id: poolId, name: 'GA', price: '45.00', booking_fee: '2.50', max_per_order: 6, gst_applies: true });

    expect((await api<Event>(`/events/${slug}`)).body).toMatchObject({ id: eventId, status: 'draft' });
    expect(printed<Event>(await partnerctl('event', 'publish', slug, '--org', orgId)).status).toBe('published');

    const shown = await api<Event>(`/events/${eventId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ slug, title: 'Terminal Live', status: 'published', sold_out: false, venue: { id: venueId, name: 'Terminal Hall' } });
    expect(await ticketTypes()).toEqual([
      expect.objectContaining({ id: typeId, pool_id: poolId, name: 'GA', price: '45.00', booking_fee: '2.50', gst_applies: true, max_per_order: 6, available: 50, capacity: 50 }),
    ]);
  });

  it('changes the venue, the event, the pool and the ticket type as the API then shows them', async () => {
    const [venue, event, pool, type] = await Promise.all([
      partnerctl('venue', 'update', String(venueId), '--org', orgId, '--name', 'Terminal Hall East'),
      partnerctl('event', 'update', slug, '--org', orgId, '--title', 'Terminal Live (late show)', '--doors', '7:30pm'),
      partnerctl('pool', 'update', String(poolId), '--org', orgId, '--capacity', '80'),
      partnerctl('ticket-type', 'update', String(typeId), '--org', orgId, '--price', '50.00'),
    ]);
    expect(printed<{ name: string }>(venue).name).toBe('Terminal Hall East');
    expect(printed<Event>(event).title).toBe('Terminal Live (late show)');
    expect(printed<{ capacity: number }>(pool).capacity).toBe(80);
    expect(printed<TicketType>(type).price).toBe('50.00');

    expect((await api<{ name: string }>(`/venues/${venueId}`)).body.name).toBe('Terminal Hall East');
    expect((await api<Event>(`/events/${slug}`)).body).toMatchObject({ title: 'Terminal Live (late show)', doors: '7:30pm', venue: { name: 'Terminal Hall East' } });
    expect(await ticketTypes()).toEqual([expect.objectContaining({ id: typeId, price: '50.00', available: 80, capacity: 80 })]);
  });

  it('moves an event through review, back to draft, sold out and cancelled', async () => {
    const second = uniqueSlug('cli-review');
    const startsAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    printed<Event>(await partnerctl('event', 'create', '--org', orgId, '--slug', second, '--title', 'Under Review', '--starts-at', startsAt, '--timezone', 'Australia/Perth'));
    const status = async () => (await api<Event>(`/events/${second}`)).body;

    expect(printed<Event>(await partnerctl('event', 'submit', second, '--org', orgId)).status).toBe('pending_review');
    expect((await status()).status).toBe('pending_review');
    expect(printed<Event>(await partnerctl('event', 'unpublish', second, '--org', orgId)).status).toBe('draft');
    expect((await status()).status).toBe('draft');
    expect(printed<Event>(await partnerctl('event', 'sold-out', second, '--org', orgId)).sold_out).toBe(true);
    expect(printed<Event>(await partnerctl('event', 'cancel', second, '--org', orgId)).status).toBe('cancelled');
    expect(await status()).toMatchObject({ status: 'cancelled', sold_out: true });

    // A cancelled event is not published again.
    expectRefused(await partnerctl('event', 'publish', second, '--org', orgId), /Cannot publish an event that is cancelled\./);
    expect((await status()).status).toBe('cancelled');
  });

  it('refuses bad input with a clear message, exit code 1 and no write', async () => {
    const eventsBefore = (await api<{ data: Event[] }>('/events?status=all&time=all')).body.data.map((event) => event.id);
    const [unknownCommand, missingName, notANumber, notABoolean, notAnId, notACoordinate, unknownEvent, unknownPool, badTime, badPrice, noPools, unknownVenue] = await Promise.all([
      partnerctl('event', 'delete', slug, '--org', orgId),
      partnerctl('pool', 'create', '--org', orgId, '--event', slug, '--capacity', '10'),
      partnerctl('pool', 'create', '--org', orgId, '--event', slug, '--name', 'Balcony', '--capacity', 'ten'),
      partnerctl('ticket-type', 'create', '--org', orgId, '--event', slug, '--name', 'VIP', '--price', '90.00', '--pool-ids', String(poolId), '--hidden', 'yes'),
      partnerctl('venue', 'update', 'hall', '--org', orgId, '--name', 'Hall'),
      partnerctl('venue', 'create', '--org', orgId, '--name', 'Nowhere', '--lat', 'north'),
      partnerctl('event', 'publish', 'no-such-event', '--org', orgId),
      partnerctl('pool', 'update', '999999999', '--org', orgId, '--capacity', '5'),
      partnerctl('event', 'create', '--org', orgId, '--slug', uniqueSlug('cli-bad'), '--title', 'Bad Time', '--starts-at', 'next friday', '--timezone', 'Australia/Sydney'),
      partnerctl('ticket-type', 'update', String(typeId), '--org', orgId, '--price', 'free'),
      partnerctl('ticket-type', 'create', '--org', orgId, '--event', slug, '--name', 'Nowhere', '--price', '10.00'),
      partnerctl('event', 'update', slug, '--org', orgId, '--venue-id', '999999999'),
    ]);
    expectRefused(unknownCommand, /unknown command 'delete'/);
    expectRefused(missingName, /required option '--name <name>' not specified/);
    expectRefused(notANumber, /option '--capacity <n>' argument 'ten' is invalid\. expected a whole number/);
    expectRefused(notABoolean, /option '--hidden <bool>' argument 'yes' is invalid\. expected true or false/);
    expectRefused(notAnId, /value 'hall' is invalid for argument 'id'/);
    expectRefused(notACoordinate, /option '--lat <n>' argument 'north' is invalid\. expected a number/);
    expectRefused(unknownEvent, /No such event\./);
    expectRefused(unknownPool, /No such pool\./);
    expectRefused(badTime, /starts_at must be an ISO-8601 time\./);
    expectRefused(badPrice, /price must be a decimal amount/);
    expectRefused(noPools, /pool_ids is required\./);
    expectRefused(unknownVenue, /That reference does not exist\./);

    expect((await api<{ data: Event[] }>('/events?status=all&time=all')).body.data.map((event) => event.id)).toEqual(eventsBefore);
    expect((await api<Event>(`/events/${slug}`)).body).toMatchObject({ title: 'Terminal Live (late show)', venue: { id: venueId } });
    expect(await ticketTypes()).toEqual([expect.objectContaining({ id: typeId, price: '50.00', capacity: 80 })]);
  });
});

describe('partnerctl coupon', () => {
  const checkout = (code: string) =>
    api<{ subtotal: string; discount: string; total: string } & ErrorBody>('/checkout_sessions', {
      method: 'POST',
      body: { event_id: slug, items: [{ ticket_type_id: typeId, quantity: 2 }], coupon_code: code },
    });

  it('sets a code whose discount a checkout session then takes', async () => {
    const set = await partnerctl('coupon', 'set', '--org', orgId, '--event', String(eventId), '--code', 'TERM10', '--percent', '10', '--max-uses', '5');
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(set.stdout)).toMatchObject({ object: 'coupon', code: 'TERM10', event_id: eventId, kind: 'percent', value: '10', max_uses: 5, used: 0 });

    const session = await checkout('term10');
    expect(session.status).toBe(201);
    expect(session.body).toMatchObject({ subtotal: '100.00', discount: '10.00', total: '90.00' });

    const replaced = await partnerctl('coupon', 'set', '--org', orgId, '--event', String(eventId), '--code', 'TERM10', '--amount', '15.00');
    expect(JSON.parse(replaced.stdout)).toMatchObject({ code: 'TERM10', kind: 'amount', value: '15.00' });
    expect((await checkout('TERM10')).body).toMatchObject({ subtotal: '100.00', discount: '15.00', total: '85.00' });
  });

  it('refuses bad input with a clear message, exit code 1 and no coupon', async () => {
    const coupon = (...args: string[]) => partnerctl('coupon', 'set', '--org', orgId, ...args);
    const [unknownCommand, missingCode, both, tooMuch, notANumber, unknownEvent, badTime] = await Promise.all([
      partnerctl('coupon', 'list', '--org', orgId),
      coupon('--event', String(eventId), '--percent', '10'),
      coupon('--event', String(eventId), '--code', 'BOTH', '--percent', '10', '--amount', '5.00'),
      coupon('--event', String(eventId), '--code', 'HUGE', '--percent', '150'),
      coupon('--event', slug, '--code', 'SLUGGED', '--percent', '10'),
      coupon('--event', '999999999', '--code', 'NOWHERE', '--percent', '10'),
      coupon('--event', String(eventId), '--code', 'SOON', '--percent', '10', '--valid-until', 'soon'),
    ]);
    expectRefused(unknownCommand, /unknown command 'list'/);
    expectRefused(missingCode, /required option '--code <code>' not specified/);
    expectRefused(both, /give exactly one of --percent and --amount/);
    expectRefused(tooMuch, /A percent coupon takes 1 to 100\./);
    expectRefused(notANumber, /option '--event <id>' argument '.+' is invalid\. expected a positive whole number/);
    expectRefused(unknownEvent, /No such event\./);
    expectRefused(badTime, /valid_until must be an ISO-8601 time\./);

    for (const code of ['BOTH', 'HUGE', 'NOWHERE', 'SOON']) {
      const refused = await checkout(code);
      expect({ status: refused.status, code: refused.body.error.code, param: refused.body.error.param }).toEqual({ status: 400, code: 'parameter_invalid', param: 'coupon_code' });
    }
  });
});
