/**
 * Holding, releasing, selling and expiring tickets through a real inventory
 * service (gRPC, PostgreSQL, Redis), on an event each test creates.
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, gen, randomBase62, type RequestContext, type ServiceRuntime, redisFromEnv, type RedisClient, keysEverywhere } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { soldTickets } from '../src/storage/catalog-repository';
import { eventually } from './support';

const ctx: RequestContext = { organisationId: 535353, mode: 'live', keyId: 1, requestId: 'it' };
const testCtx: RequestContext = { ...ctx, mode: 'test' };
let inventory: ServiceRuntime;
let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;
let db: Pool;
let redis: RedisClient;

beforeAll(async () => {
  inventory = await startInventory(
    loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0', HOLD_SWEEP_INTERVAL_MS: '200', HOLD_SETTLE_INTERVAL_MS: '200' }),
    createLogger('it', 'silent'),
  );
  client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 2 });
  redis = redisFromEnv();
}, 60_000);

afterAll(async () => {
  client.close();
  await inventory.stop();
  await db.end();
  await redis.quit();
});

/** A published event with one pool of `capacity` and a GA type selling from it. */
async function onSaleEvent(capacity: number) {
  const slug = `hold-${randomBase62(8).toLowerCase()}`;
  const event = await client.upsertEvent({ fields: { slug, title: 'Hold Test', startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(), timezone: 'UTC' } }, ctx);
  const pool = await client.upsertPool({ eventIdOrSlug: slug, fields: { name: 'GA', capacity: BigInt(capacity) } }, ctx);
  const type = await client.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '59.50', bookingFee: '4.50', maxPerOrder: 100, poolIds: [pool.id] } }, ctx);
  await client.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, eventId: event.id, poolId: pool.id, typeId: type.id };
}

const available = async (slug: string) => Number((await client.listTicketTypes({ eventIdOrSlug: slug }, ctx)).data[0]!.available);
const holdState = async (id: string) => (await db.query<{ state: string }>('SELECT state FROM holds WHERE id = $1', [id])).rows[0]?.state;
const sold = async (poolId: bigint) =>
  (await db.query<{ sold: number }>(`SELECT ${soldTickets('p')} AS sold FROM pools p WHERE p.id = $1`, [poolId.toString()])).rows[0]!.sold;

const hold = (slug: string, typeId: bigint, quantity: number, options: { id?: string; ttl?: number; as?: RequestContext } = {}) =>
  client.holdStock(
    { holdId: options.id ?? randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity }], ttlSeconds: options.ttl ?? 900 },
    options.as ?? ctx,
  );

describe('holding tickets', () => {
  it('holds, prices in decimal strings and records the hold', async () => {
    const { slug, typeId } = await onSaleEvent(10);
    const id = randomBase62(16);
    const held = await hold(slug, typeId, 4, { id });
    expect(held.lines).toEqual([expect.objectContaining({ quantity: 4, unitPrice: '59.50', unitBookingFee: '4.50', total: '238.00', name: 'GA' })]);
    expect(Date.parse(held.expiresAt!) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(await available(slug)).toBe(6);
    expect(await holdState(id)).toBe('held');
  });

  it('is idempotent on the hold id', async () => {
    const { slug, typeId } = await onSaleEvent(10);
    const id = randomBase62(16);
    const first = await hold(slug, typeId, 4, { id });
    const again = await hold(slug, typeId, 4, { id });
    expect(again.expiresAt).toBe(first.expiresAt);
    expect(await available(slug)).toBe(6);
  });

  it('refuses more than is left with exceeds_availability, holding nothing', async () => {
    const { slug, typeId } = await onSaleEvent(5);
    await expect(hold(slug, typeId, 6)).rejects.toMatchObject({ code: 'exceeds_availability' });
    expect(await available(slug)).toBe(5);
  });

  it('validates and prices a dry run (test keys) but holds nothing', async () => {
    const { slug, typeId } = await onSaleEvent(5);
    const priced = await hold(slug, typeId, 5, { as: testCtx });
    expect(priced.lines[0]!.total).toBe('297.50');
    expect(priced.expiresAt).toBeUndefined();
    expect(await available(slug)).toBe(5);
    await expect(hold(slug, typeId, 6, { as: testCtx })).rejects.toMatchObject({ code: 'exceeds_availability' });
  });

  it("answers resource_missing for another organisation's event", async () => {
    const { slug, typeId } = await onSaleEvent(5);
    await expect(hold(slug, typeId, 1, { as: { ...ctx, organisationId: 999_999 } })).rejects.toMatchObject({ code: 'resource_missing', param: 'event_id' });
  });
});

describe('releasing, selling and expiring', () => {
  it('returns a released hold to stock, once', async () => {
    const { slug, typeId } = await onSaleEvent(10);
    const id = randomBase62(16);
    await hold(slug, typeId, 3, { id });
    expect((await client.releaseHold({ holdId: id }, ctx)).released).toBe(true);
    expect((await client.releaseHold({ holdId: id }, ctx)).released).toBe(false);
    expect(await available(slug)).toBe(10);
    expect(await holdState(id)).toBe('released');
  });

  it('sells a committed hold for good: sold grows, stock stays taken, a release returns nothing', async () => {
    const { slug, typeId, poolId } = await onSaleEvent(10);
    const id = randomBase62(16);
    await hold(slug, typeId, 3, { id });
    expect((await client.commitHold({ holdId: id }, ctx)).committed).toBe(true);
    expect(await sold(poolId)).toBe(3);
    expect((await client.releaseHold({ holdId: id }, ctx)).released).toBe(false);
    expect(await available(slug)).toBe(7);
    expect(await holdState(id)).toBe('committed');
    await expect(client.commitHold({ holdId: randomBase62(16) }, ctx)).rejects.toMatchObject({ code: 'resource_missing' });
  });

  it('returns expired holds to stock by itself', async () => {
    const { slug, typeId } = await onSaleEvent(10);
    const id = randomBase62(16);
    await hold(slug, typeId, 4, { id, ttl: 1 });
    expect(await available(slug)).toBe(6);
    const deadline = Date.now() + 10_000;
    while ((await holdState(id)) !== 'released') {
      if (Date.now() > deadline) throw new Error('the hold did not expire');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await available(slug)).toBe(10);
  }, 15_000);

  it('returns a backlog of lapsed holds over several events in batches, and leaves live holds alone', async () => {
    const events = [await onSaleEvent(1_000), await onSaleEvent(1_000)];
    // 2 × 225 holds that then lapse together (more than one sweep statement of 200), and one live hold on each event.
    const lapsing = events.flatMap(({ slug, typeId }) => Array.from({ length: 225 }, () => ({ slug, typeId, id: randomBase62(16) })));
    await Promise.all(lapsing.map(({ slug, typeId, id }) => hold(slug, typeId, 2, { id, ttl: 900 })));
    const live = events.map(() => randomBase62(16));
    await Promise.all(events.map(({ slug, typeId }, index) => hold(slug, typeId, 3, { id: live[index], ttl: 900 })));
    for (const { slug } of events) expect(await available(slug)).toBe(1_000 - 225 * 2 - 3);

    // They lapse only now, however long taking them took on a busy machine.
    const ids = lapsing.map(({ id }) => id);
    await db.query("UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = ANY($1)", [ids]);
    const stillHeld = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM holds WHERE id = ANY($1) AND state = 'held'", [ids])).rows[0]!.n;
    await eventually('every lapsed hold to be released', stillHeld, (left) => left === 0, 15_000);
    for (const { slug } of events) {
      expect(await eventually('the tickets back in stock', () => available(slug), (left) => left === 1_000 - 3)).toBe(1_000 - 3);
    }
    for (const id of live) expect(await holdState(id)).toBe('held');
  }, 30_000);

  it('settles the Redis records of holds a dead process ended in PostgreSQL only', async () => {
    const { slug, eventId, typeId } = await onSaleEvent(10);
    const released = randomBase62(16);
    const sold = randomBase62(16);
    await hold(slug, typeId, 4, { id: released });
    await hold(slug, typeId, 3, { id: sold });
    // A process died after ending each hold in PostgreSQL and before Redis heard of it, long ago.
    await db.query("UPDATE holds SET state = 'released' WHERE id = $1", [released]);
    await client.commitHold({ holdId: sold }, ctx); // committed in both, then its record written back as if Redis never heard
    // Both still out of stock while their records look live; once they look long lapsed the settler (every 200 ms here) may act at once.
    expect(await available(slug)).toBe(3);
    const longAgo = Date.now() - 60_000;
    await redis.set(`{ev:${eventId}}:hold:${sold}`, JSON.stringify({ pools: [] }));
    await redis.zadd(`{ev:${eventId}}:holds`, longAgo, released, longAgo, sold);
    // The released hold's tickets come back; the sold hold's record goes, its tickets stay sold.
    expect(await eventually('the released hold to return to stock', () => available(slug), (left) => left === 7)).toBe(7);
    await eventually('both records to be settled', () => redis.zcard(`{ev:${eventId}}:holds`), (left) => left === 0);
    expect(await redis.exists(`{ev:${eventId}}:hold:${sold}`, `{ev:${eventId}}:hold:${released}`)).toBe(0);
    expect(await available(slug)).toBe(7);
    expect(await holdState(released)).toBe('released');
  });

  it('rebuilds lost counters as capacity − sold − live holds', async () => {
    const { slug, eventId, typeId, poolId } = await onSaleEvent(20);
    const sale = randomBase62(16);
    await hold(slug, typeId, 5, { id: sale });
    await client.commitHold({ holdId: sale }, ctx);
    await hold(slug, typeId, 3);
    expect(await available(slug)).toBe(12);
    // Redis loses everything it knew about the event.
    const keys = await keysEverywhere(redis, `{ev:${eventId}}:*`);
    await redis.del(...keys);
    expect(await available(slug)).toBe(20 - 5 - 3);
    await hold(slug, typeId, 12);
    await expect(hold(slug, typeId, 1)).rejects.toMatchObject({ code: 'exceeds_availability' });
    expect(await sold(poolId)).toBe(5);
  });

  it('never oversells 2,000 concurrent checkouts on 500 tickets', async () => {
    const { slug, typeId } = await onSaleEvent(500);
    // Its subject is oversell, not latency: a deadline long enough for 2,000 calls queued on a loaded machine.
    const results = await Promise.allSettled(
      Array.from({ length: 2000 }, () =>
        client.holdStock({ holdId: randomBase62(16), eventIdOrSlug: slug, lines: [{ ticketTypeId: typeId, quantity: 1 }], ttlSeconds: 900 }, ctx, { deadlineMs: 50_000 }),
      ),
    );
    const held = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason as { code?: string; message?: string });
    // Anything but a refusal for stock, with its message: the failure says what went wrong.
    expect(refused.filter((reason) => reason.code !== 'exceeds_availability').map((reason) => `${reason.code}: ${reason.message} ${JSON.stringify(reason)}`)).toEqual([]);
    expect(held).toHaveLength(500);
    expect(refused).toHaveLength(1500);
    expect(await available(slug)).toBe(0);
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM holds h JOIN events e ON e.id = h.event_id WHERE e.slug = $1 AND h.state = 'held'", [slug]);
    expect(Number(rows[0]!.n)).toBe(500);
  }, 60_000);

  it('announces low stock and sold out through the outbox, once each', async () => {
    const { slug, eventId, typeId } = await onSaleEvent(50);
    await hold(slug, typeId, 44);
    await hold(slug, typeId, 1);
    await hold(slug, typeId, 5);
    const { rows } = await db.query<{ event_type: string; payload: { data: { threshold?: number } } }>(
      "SELECT event_type, payload FROM outbox WHERE partition_key = $1 AND event_type IN ('ticket_type.low_inventory', 'event.sold_out') ORDER BY id",
      [`event:${eventId}`],
    );
    expect(rows.map((row) => row.event_type)).toEqual(['ticket_type.low_inventory', 'event.sold_out']);
    expect(rows[0]!.payload.data.threshold).toBe(5);
  });
});

describe('changing capacity while tickets sell', () => {
  it('waits for a sale being committed, then refuses to cut below what it sold', async () => {
    const { slug, poolId, typeId } = await onSaleEvent(10);
    const holdId = randomBase62(16);
    await hold(slug, typeId, 6, { id: holdId });
    // A sale of those 6 tickets, in flight: its pool_sales row written, not committed yet.
    const sale = await db.connect();
    try {
      await sale.query('BEGIN');
      await sale.query('INSERT INTO pool_sales (hold_id, pool_id, quantity) VALUES ($1, $2, 6)', [holdId, poolId.toString()]);
      let settled = false;
      const cut = client.upsertPool({ id: poolId, fields: { capacity: 5n } }, ctx).finally(() => (settled = true));
      cut.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(settled).toBe(false); // held back until the sale is decided
      await sale.query("UPDATE holds SET state = 'committed' WHERE id = $1", [holdId]);
      await sale.query('COMMIT');
      await expect(cut).rejects.toMatchObject({ code: 'parameter_invalid' });
    } finally {
      sale.release();
    }
    expect(await sold(poolId)).toBe(6);
  });
});
