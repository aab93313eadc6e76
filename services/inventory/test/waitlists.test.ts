/**
 * Waiting lists through a real inventory service (gRPC, PostgreSQL, Redis):
 * returning tickets are reserved for the list, offered in join order as
 * holds, passed on when an offer lapses, and never oversold or lost, also
 * under a burst and across a crash between the allocator's steps. The
 * service's own allocator is slowed right down so each test runs the
 * passes it means to (through a desk of its own on the same stores); the
 * sweeper runs as in production.
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, gen, randomBase62, redisFromEnv, type MailMessage, type Mailer, type RedisClient, type RequestContext, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { Catalog } from '../src/domain/catalog';
import { OfferEmails, RETRY_SCHEDULE_MS } from '../src/domain/offer-emails';
import { WaitlistDesk } from '../src/domain/waitlist-desk';
import { CatalogVersions } from '../src/storage/catalog-versions';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { HoldBook } from '../src/storage/hold-book';
import { availabilityKey, waitlistDemandKey, waitlistReserveKey } from '../src/storage/stock-keys';
import { StockStore } from '../src/storage/stock-store';
import { WaitlistEntries } from '../src/storage/waitlist-entries';
import { WaitlistStock } from '../src/storage/waitlist-stock';
import { eventually } from './support';

jest.setTimeout(30_000);

const ctx: RequestContext = { organisationId: 636363, mode: 'live', keyId: 1, requestId: 'it' };
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;
let redis: RedisClient;
let desk: WaitlistDesk;
let reserve: WaitlistStock;
let repository: CatalogRepository;
let stock: StockStore;
let catalog: Catalog;

beforeAll(async () => {
  inventory = await startInventory(
    loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0', HOLD_SWEEP_INTERVAL_MS: '100', HOLD_SETTLE_INTERVAL_MS: '200', WAITLIST_INTERVAL_MS: '3600000', WAITLIST_EMAIL_INTERVAL_MS: '3600000' }),
    createLogger('it', 'silent'),
  );
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 4 });
  redis = redisFromEnv();
  repository = new CatalogRepository(db);
  reserve = new WaitlistStock(redis);
  stock = new StockStore(redis, repository, new HoldBook(redis));
  catalog = new Catalog(repository, stock, new CatalogVersions(redis), { publicSiteUrl: 'https://tickets.example.com' });
  desk = new WaitlistDesk(db, repository, stock, reserve, catalog, createLogger('it', 'silent'), { offerTtlSeconds: 900 });
}, 60_000);

afterAll(async () => {
  client.close();
  await inventory.stop();
  await db.end();
  await redis.quit();
});

/** A published event with one pool of `capacity`, every ticket held, and a GA type selling from it. */
async function soldOutEvent(capacity: number, holdSize = capacity) {
  const slug = `wait-${randomBase62(8).toLowerCase()}`;
  const event = await client.upsertEvent({ fields: { slug, title: 'Waiting Test', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '2.00', maxPerOrder: 10, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  const holds: string[] = [];
  for (let taken = 0; taken < capacity; taken += holdSize) {
    const id = randomBase62(16);
    await hold(slug, type.id, Math.min(holdSize, capacity - taken), id);
    holds.push(id);
  }
  return { slug, eventId: event.id.toString(), poolId: pool.id.toString(), typeId: type.id, holds };
}

const hold = (slug: string, typeId: bigint, quantity: number, id = randomBase62(16)) =>
  client.holdStock({ holdId: id, eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity }], ttlSeconds: 900 }, ctx);

const join = (eventId: string, typeId: bigint, email: string, quantity: number) =>
  client.joinWaitlist({ eventId: BigInt(eventId), ticketTypeId: typeId, email, quantity }, ctx);

/** Makes the holds look lapsed; the service's sweeper releases them. */
const lapse = (ids: string[]) => db.query("UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = ANY($1::text[])", [ids]);

const counter = async (key: string) => Number((await redis.get(key)) ?? 0);
const stockOf = async (eventId: string, poolId: string) => ({
  available: await counter(availabilityKey(eventId, poolId)),
  reserved: await counter(waitlistReserveKey(eventId, poolId)),
});
const entries = async (slug: string) => (await client.listWaitlist({ eventIdOrSlug: slug }, ctx)).data;
const liveHeld = async (eventId: string) =>
  (
    await db.query<{ held: number }>(
      "SELECT COALESCE(sum((line->>'quantity')::integer), 0)::integer AS held FROM holds h, jsonb_array_elements(h.pools) line WHERE h.event_id = $1 AND h.state = 'held'",
      [eventId],
    )
  ).rows[0]!.held;
const releases = async (eventId: string) =>
  (
    await db.query<{ payload: { data: { object: { event_id: number; pool_id: number; released_count: number } } } }>(
      "SELECT payload FROM outbox WHERE partition_key = $1 AND event_type = 'waitlist.released' ORDER BY id",
      [`event:${eventId}`],
    )
  ).rows.map((row) => row.payload.data.object);
const heldInRedis = async (eventId: string, holdId: string) => (await redis.exists(`{ev:${eventId}}:hold:${holdId}`)) === 1;

describe('joining', () => {
  it('keeps one live entry per email and event, whatever the case of the address', async () => {
    const { eventId, typeId, slug } = await soldOutEvent(2);
    const first = await join(eventId, typeId, 'Ada@Example.com', 2);
    const again = await join(eventId, typeId, 'ada@example.com', 1);
    expect(again.id).toBe(first.id);
    expect(again.quantity).toBe(2);
    expect((await entries(slug)).map((entry) => [entry.email, entry.state])).toEqual([['Ada@Example.com', 'waiting']]);
    expect(await counter(waitlistDemandKey(eventId, first.poolId.toString()))).toBe(2);
  });

  it('describes the join page: the event and its public ticket types, for the organisation’s published event only', async () => {
    const { eventId, typeId } = await soldOutEvent(2);
    const form = await client.getWaitlistForm({ eventId: BigInt(eventId) }, ctx);
    expect([form.organisationId, form.event?.title, form.ticketTypes.map((type) => [type.id, type.status])]).toEqual([BigInt(ctx.organisationId), 'Waiting Test', [[typeId, 'sold_out']]]);
    await expect(client.getWaitlistForm({ eventId: 999_999_999n }, ctx)).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(client.getWaitlistForm({ eventId: BigInt(eventId) }, { ...ctx, organisationId: 1 })).rejects.toMatchObject({ code: 'resource_missing' });
  });

  it('refuses bad input with the API error codes, writing nothing', async () => {
    const { eventId, typeId, slug } = await soldOutEvent(2);
    await expect(join(eventId, typeId, 'nobody', 1)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'email' });
    await expect(join(eventId, typeId, 'a@example.com', 11)).rejects.toMatchObject({ code: 'exceeds_max_per_order', param: 'quantity' });
    await expect(join('999999999', typeId, 'a@example.com', 1)).rejects.toMatchObject({ code: 'resource_missing', param: 'event_id' });
    await expect(client.joinWaitlist({ eventId: BigInt(eventId), ticketTypeId: typeId, email: 'a@example.com', quantity: 1 }, { ...ctx, organisationId: 1 })).rejects.toMatchObject({ code: 'resource_missing' });
    expect(await entries(slug)).toEqual([]);
  });

  it('sends a customer to buy while enough tickets are on sale', async () => {
    const { eventId, typeId, holds } = await soldOutEvent(4, 2);
    await client.releaseHold({ holdId: holds[0]! }, ctx);
    await expect(join(eventId, typeId, 'b@example.com', 2)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'quantity' });
    expect((await join(eventId, typeId, 'b@example.com', 3)).state).toBe('waiting');
  });
});

describe('offering returned tickets', () => {
  it('when held tickets expire, then they go to waiting entries in join order, each up to what it asked for', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(4);
    await join(eventId, typeId, 'first@example.com', 2);
    await join(eventId, typeId, 'second@example.com', 1);
    await join(eventId, typeId, 'third@example.com', 2);
    await join(eventId, typeId, 'fourth@example.com', 1);
    await lapse(holds);
    // Released straight into the reserve: nothing reached general sale.
    await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 4);
    expect((await stockOf(eventId, poolId)).available).toBe(0);

    expect(await desk.allocate(String(ctx.organisationId), eventId, poolId)).toBe(4);
    const list = await entries(slug);
    expect(list.map((entry) => [entry.email, entry.state, entry.offeredQuantity ?? null])).toEqual([
      ['first@example.com', 'offered', 2],
      ['second@example.com', 'offered', 1],
      ['third@example.com', 'offered', 1],
      ['fourth@example.com', 'waiting', null],
    ]);
    // Each offer is an ordinary hold, held in both stores.
    for (const entry of list.slice(0, 3)) {
      expect(entry.holdId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(await heldInRedis(eventId, entry.holdId!)).toBe(true);
    }
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 0 });
    expect(await liveHeld(eventId)).toBe(4);
    // What the hosted checkout opens the offer's session from: priced like any hold.
    const offer = await client.getWaitlistOffer({ holdId: list[2]!.holdId! }, ctx);
    expect([offer.organisationId, offer.email, offer.state]).toEqual([BigInt(ctx.organisationId), 'third@example.com', 'offered']);
    expect(offer.hold!.lines).toEqual([expect.objectContaining({ quantity: 1, unitPrice: '40.00', unitBookingFee: '2.00', total: '40.00' })]);
    expect(offer.hold!.expiresAt).toBe(list[2]!.offerExpiresAt);
    await expect(client.getWaitlistOffer({ holdId: holds[0]! }, ctx)).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(client.getWaitlistOffer({ holdId: list[2]!.holdId! }, { ...ctx, organisationId: 1 })).rejects.toMatchObject({ code: 'resource_missing' });
    expect(await releases(eventId)).toEqual([{ object: 'waitlist_release', event_id: Number(eventId), pool_id: Number(poolId), released_count: 4 }]);
    // A second pass changes nothing.
    expect(await desk.allocate(String(ctx.organisationId), eventId, poolId)).toBe(0);
    expect(await releases(eventId)).toHaveLength(1);
  });

  it('when an offer lapses, then it passes to the next entry, and back on sale when nobody waits', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(2);
    await join(eventId, typeId, 'first@example.com', 2);
    await join(eventId, typeId, 'second@example.com', 2);
    await lapse(holds);
    await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 2);
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    const [first] = await entries(slug);
    expect(first!.state).toBe('offered');

    await lapse([first!.holdId!]);
    await eventually('the lapsed offer reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 2);
    expect(await desk.allocate(String(ctx.organisationId), eventId, poolId)).toBe(2);
    const [lapsed, second] = await entries(slug);
    expect([lapsed!.state, second!.state, second!.offeredQuantity]).toEqual(['lapsed', 'offered', 2]);

    await lapse([second!.holdId!]);
    // Nobody waits any more: the release puts the tickets on sale itself.
    await eventually('the last offer back on sale', () => stockOf(eventId, poolId), (stock) => stock.available === 2 && stock.reserved === 0);
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    expect((await entries(slug)).map((entry) => entry.state)).toEqual(['lapsed', 'lapsed']);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 2, reserved: 0 });
    expect((await releases(eventId)).map((release) => release.released_count)).toEqual([2, 2]);
  });

  it('when an offer is sold, then the entry is purchased and the tickets stay sold', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(1);
    await join(eventId, typeId, 'buyer@example.com', 1);
    await lapse(holds);
    await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 1);
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    const [offered] = await entries(slug);
    expect((await client.commitHold({ holdId: offered!.holdId! }, ctx)).committed).toBe(true);
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    expect((await entries(slug))[0]!.state).toBe('purchased');
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 0 });
  });

  it('when capacity grows, then the list gets the new tickets first', async () => {
    const { slug, eventId, poolId, typeId } = await soldOutEvent(2);
    await join(eventId, typeId, 'first@example.com', 3);
    await client.upsertPool({ id: BigInt(poolId), fields: { capacity: 7n } }, ctx);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 2, reserved: 3 });
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    expect((await entries(slug))[0]!.offeredQuantity).toBe(3);
  });

  it('when an operator releases tickets on sale to the list, then they are offered at once', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(4, 2);
    await join(eventId, typeId, 'first@example.com', 3);
    await client.releaseHold({ holdId: holds[0]! }, ctx);
    // Released with someone waiting: the reserve took them, so none were on sale to move.
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 2 });
    await client.upsertPool({ id: BigInt(poolId), fields: { capacity: 6n } }, ctx);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 1, reserved: 3 });
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    await join(eventId, typeId, 'second@example.com', 2);
    const released = await client.releaseWaitlist({ eventIdOrSlug: slug, poolId: BigInt(poolId), count: 5n }, ctx);
    expect(released.releasedCount).toBe(1n);
    expect((await entries(slug)).map((entry) => entry.offeredQuantity ?? null)).toEqual([3, 1]);
    await expect(client.releaseWaitlist({ eventIdOrSlug: slug, poolId: BigInt(poolId), count: 0n }, ctx)).rejects.toMatchObject({ code: 'parameter_invalid', param: 'count' });
  });
});

describe('the allocator round', () => {
  it('passes over a quiet list without a transaction, and takes a pool up again once tickets return or Redis lost its demand', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(2);
    await join(eventId, typeId, 'quiet@example.com', 2);
    const passes = jest.spyOn(desk, 'allocate');
    try {
      const passedHere = () => passes.mock.calls.filter((call) => call[2] === poolId).length;
      // Someone waits, nothing has come back, and Redis has the demand the join set: nothing to do.
      expect(await redis.get(waitlistDemandKey(eventId, poolId))).toBe('2');
      await desk.allocateAll();
      expect(passedHere()).toBe(0);

      await lapse(holds);
      await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 2);
      await desk.allocateAll();
      expect(passedHere()).toBe(1);
      expect((await entries(slug)).map((entry) => [entry.state, entry.offeredQuantity])).toEqual([['offered', 2]]);
      // Offered and taken: quiet again.
      await desk.allocateAll();
      expect(passedHere()).toBe(1);

      // A Redis that lost the demand key: the next round puts PostgreSQL's figure back (0: the entry was offered).
      await join(eventId, typeId, 'later@example.com', 1);
      await redis.del(waitlistDemandKey(eventId, poolId));
      await desk.allocateAll();
      expect(passedHere()).toBe(2);
      expect(await redis.get(waitlistDemandKey(eventId, poolId))).toBe('1');
    } finally {
      passes.mockRestore();
    }
  });
  it('logs one line a round, with the count, when Redis cannot be read for any list', async () => {
    for (const email of ['one@example.com', 'two@example.com']) {
      const { eventId, typeId } = await soldOutEvent(1);
      await join(eventId, typeId, email, 1);
    }
    // A client that never connects, as while Redis is away: every list's read fails at once.
    const away = redisFromEnv(process.env, { connection: { lazyConnect: true, enableOfflineQueue: false } });
    const logger = createLogger('it', 'silent');
    const warnings = jest.spyOn(logger, 'warn');
    const cut = new WaitlistDesk(db, repository, stock, new WaitlistStock(away), catalog, logger, { offerTtlSeconds: 900 });
    try {
      await cut.allocateAll();
      expect(warnings).toHaveBeenCalledTimes(1);
      expect((warnings.mock.calls[0]![0] as { count: number }).count).toBeGreaterThanOrEqual(2);
    } finally {
      away.disconnect();
    }
  });
});

/** The one truly external part: a mail system that records what it accepts, or refuses while `refusing`. */
class RecordingMailer implements Mailer {
  readonly accepted: MailMessage[] = [];
  refusing = false;
  async send(message: MailMessage): Promise<void> {
    if (this.refusing) throw new Error('421 try again later');
    this.accepted.push(message);
  }
  async close(): Promise<void> {}
}

describe('offer emails', () => {
  it('emails each offer once its tickets are held, with the link to its checkout; a refusal is retried', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(3);
    await join(eventId, typeId, 'first@example.com', 2);
    await join(eventId, typeId, 'second@example.com', 1);
    await lapse(holds);
    await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 3);
    const mailer = new RecordingMailer();
    const emails = new OfferEmails(new WaitlistEntries(db), mailer, { checkoutBaseUrl: 'https://checkout.example.com', messageIdDomain: 'example.com' }, createLogger('it', 'silent'));

    // Recorded but not yet taken (step 3 not run): nothing is announced yet.
    await desk.offerReserve(String(ctx.organisationId), eventId, poolId);
    const [first, second] = await entries(slug);
    const ofThisTest = (message: MailMessage) => message.messageId.includes(first!.holdId!) || message.messageId.includes(second!.holdId!);
    await emails.sendDue(500);
    expect(mailer.accepted.filter(ofThisTest)).toEqual([]);

    await desk.takeOffers(eventId, poolId);
    mailer.refusing = true;
    await emails.sendDue(500);
    const state = async () => (await db.query<{ hold_id: string; email_attempts: number; emailed_at: Date | null; retry_in: number }>(
      'SELECT hold_id, email_attempts, emailed_at, extract(epoch FROM email_due_at - now()) * 1000 AS retry_in FROM waitlist_entries WHERE hold_id = ANY($1::text[]) ORDER BY id',
      [[first!.holdId, second!.holdId]],
    )).rows;
    const refused = await state();
    expect(refused.map((row) => [row.email_attempts, row.emailed_at])).toEqual([[1, null], [1, null]]);
    expect(refused.every((row) => row.retry_in > RETRY_SCHEDULE_MS[0]! - 2_000 && row.retry_in <= RETRY_SCHEDULE_MS[0]!)).toBe(true);

    // Due again (as after the wait): sent, once each.
    mailer.refusing = false;
    await db.query('UPDATE waitlist_entries SET email_due_at = now() WHERE hold_id = ANY($1::text[])', [[first!.holdId, second!.holdId]]);
    await emails.sendDue(500);
    await emails.sendDue(500);
    const ours = mailer.accepted.filter(ofThisTest);
    expect(ours.map((message) => [message.to, message.messageId]).sort()).toEqual([
      ['first@example.com', `<waitlist-offer-${first!.holdId}@example.com>`],
      ['second@example.com', `<waitlist-offer-${second!.holdId}@example.com>`],
    ]);
    const toFirst = ours.find((message) => message.to === 'first@example.com')!;
    expect(toFirst.text).toContain(`https://checkout.example.com/waitlist/${ctx.organisationId}/offers/${first!.holdId}`);
    expect(toFirst.text).toContain('2 GA tickets are now held for you.');
    expect((await state()).map((row) => row.emailed_at !== null)).toEqual([true, true]);
  });
});

describe('never oversold, never lost', () => {
  it('releases expired holds to the list during a burst: every returned ticket is offered or on sale, none sold twice', async () => {
    const capacity = 60;
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(capacity, 2);
    for (let i = 0; i < 10; i += 1) await join(eventId, typeId, `queue-${i}@example.com`, 3);
    await lapse(holds);
    // 150 buyers race the sweeper's releases, while allocator passes run alongside.
    const burst = Array.from({ length: 150 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i % 30) * 20));
      try {
        await hold(slug, typeId, 1);
        return 1;
      } catch (error) {
        expect(error).toMatchObject({ code: 'exceeds_availability' });
        return 0;
      }
    });
    const passes = Array.from({ length: 8 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 80));
      return desk.allocate(String(ctx.organisationId), eventId, poolId);
    });
    const [bought, offeredInPasses] = await Promise.all([Promise.all(burst), Promise.all(passes)]);
    await eventually('every lapsed hold released', () => db.query("SELECT count(*)::integer AS n FROM holds WHERE id = ANY($1::text[]) AND state = 'held'", [holds]), (result) => result.rows[0].n === 0);
    const finalPass = await desk.allocate(String(ctx.organisationId), eventId, poolId);

    const list = await entries(slug);
    const offered = list.reduce((sum, entry) => sum + (entry.offeredQuantity ?? 0), 0);
    const sold = bought.reduce<number>((sum, n) => sum + n, 0);
    // Everyone on the list was offered tickets (at most what they asked for; an offer made while the
    // reserve was still filling may be smaller) before a single returned ticket went on general sale.
    expect(list.every((entry) => entry.state === 'offered' && entry.offeredQuantity! >= 1 && entry.offeredQuantity! <= 3)).toBe(true);
    expect(offered).toBeGreaterThanOrEqual(10);
    expect(offeredInPasses.reduce((sum, n) => sum + n, 0) + finalPass).toBe(offered);
    const stock = await stockOf(eventId, poolId);
    expect(stock.reserved).toBe(0);
    // Every ticket is accounted for once: held by a buyer, offered to the list, or on sale.
    expect(sold + offered + stock.available).toBe(capacity);
    expect(await liveHeld(eventId)).toBe(sold + offered);
    expect((await releases(eventId)).reduce((sum, release) => sum + release.released_count, 0)).toBe(offered);
  }, 30_000);

  it('loses and doubles nothing when a process dies between recording offers and taking them', async () => {
    const { slug, eventId, poolId, typeId, holds } = await soldOutEvent(3);
    await join(eventId, typeId, 'first@example.com', 2);
    await join(eventId, typeId, 'second@example.com', 2);
    await lapse(holds);
    await eventually('the lapsed hold reserved', () => stockOf(eventId, poolId), (stock) => stock.reserved === 3);

    // Step 2 committed, then the process died: offers recorded, Redis untouched.
    expect(await desk.offerReserve(String(ctx.organisationId), eventId, poolId)).toBe(3);
    const [first, second] = await entries(slug);
    expect([first!.offeredQuantity, second!.offeredQuantity]).toEqual([2, 1]);
    expect(await heldInRedis(eventId, first!.holdId!)).toBe(false);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 3 });
    // A restarted process runs step 2 again: the reserve is spoken for, nothing is offered twice.
    expect(await desk.offerReserve(String(ctx.organisationId), eventId, poolId)).toBe(0);

    // This time it dies after Redis took the offers (one script, all or nothing) but before PostgreSQL recorded that.
    const expiresAt = new Date(Date.now() + 900_000);
    await reserve.takeOffers(eventId, poolId, [{ holdId: first!.holdId!, quantity: 2, expiresAt }, { holdId: second!.holdId!, quantity: 1, expiresAt }], 0);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 0 });

    // The recovery pass finishes both offers, taking each once.
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    await desk.allocate(String(ctx.organisationId), eventId, poolId);
    expect(await heldInRedis(eventId, first!.holdId!)).toBe(true);
    expect(await heldInRedis(eventId, second!.holdId!)).toBe(true);
    expect(await stockOf(eventId, poolId)).toEqual({ available: 0, reserved: 0 });
    expect(await liveHeld(eventId)).toBe(3);
    expect(await releases(eventId)).toHaveLength(1);

    // Both offers lapse with nobody left waiting: all three tickets go back on sale.
    await lapse([first!.holdId!, second!.holdId!]);
    await eventually('lapsed offers back on sale', () => stockOf(eventId, poolId), (stock) => stock.available === 3 && stock.reserved === 0);
  }, 20_000);
});
