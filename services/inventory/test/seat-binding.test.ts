/**
 * Binding a seated pool to its venue's plan (real PostgreSQL and Redis): the
 * capacity becomes the seats bound, and its live counter follows; sections
 * name the plan's, never overlap another pool's, and one event binds one
 * plan version.
 */
import { Pool } from 'pg';
import { createLogger, createServiceClient, gen, operatorContext, redisFromEnv, type ApiError, type RedisClient, type ServiceRuntime } from '@partner-api/shared';
import { loadInventoryConfig, startInventory } from '@partner-api/inventory';
import { SeatBinder } from '../src/domain/seat-binding';
import { SeatingPlans } from '../src/domain/seating-plans';
import { CatalogRepository } from '../src/storage/catalog-repository';
import { HoldBook } from '../src/storage/hold-book';
import { StockStore } from '../src/storage/stock-store';
import { gridPlan, seatedEvent } from './seat-support';

let db: Pool;
let redis: RedisClient;
let binder: SeatBinder;
let stock: StockStore;

beforeAll(() => {
  db = new Pool({ connectionString: process.env.DATABASE_URL, options: '-c search_path=inventory', max: 3 });
  redis = redisFromEnv();
  const book = new HoldBook(redis);
  stock = new StockStore(redis, new CatalogRepository(db as never), book);
  binder = new SeatBinder(db as never, stock);
});
afterAll(async () => {
  await db.end();
  await redis.quit();
});

const capacityOf = async (poolId: string) => (await db.query<{ capacity: number }>('SELECT capacity FROM pools WHERE id = $1', [poolId])).rows[0]!.capacity;
const refusal = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => error as ApiError);

describe('binding a seated pool', () => {
  it('binds every section of the latest plan: the capacity is its seats, and the live counter follows', async () => {
    const { eventId, poolIds } = await seatedEvent(db, gridPlan(['stalls', 'balcony'], 3, 8));
    const pool = { id: poolIds[0]!, event_id: eventId, capacity: 10 };
    expect((await stock.availability([pool])).get(pool.id)).toBe(10);

    const bound = await binder.bind({ poolId: BigInt(pool.id) });
    expect(bound).toMatchObject({ object: 'pool_seating', version: 1, sections: [], seatCount: 48 });
    expect(await capacityOf(pool.id)).toBe(48);
    expect((await stock.availability([{ ...pool, capacity: 48 }])).get(pool.id)).toBe(48);
    const rows = await db.query('SELECT plan_version, sections FROM pool_seating WHERE pool_id = $1', [pool.id]);
    expect(rows.rows).toEqual([{ plan_version: 1, sections: null }]);
  });

  it('binds some sections, and refuses a section another pool of the event sells', async () => {
    const { eventId, poolIds } = await seatedEvent(db, gridPlan(['stalls', 'balcony', 'box'], 2, 5), 3);
    expect((await binder.bind({ poolId: BigInt(poolIds[0]!), sections: ['stalls', 'box'] })).seatCount).toBe(20);
    expect(await capacityOf(poolIds[0]!)).toBe(20);

    const overlap = await refusal(binder.bind({ poolId: BigInt(poolIds[1]!), sections: ['box'] }));
    expect(overlap).toMatchObject({ code: 'parameter_invalid', param: 'sections' });
    const everything = await refusal(binder.bind({ poolId: BigInt(poolIds[1]!) }));
    expect(everything).toMatchObject({ code: 'parameter_invalid', param: 'sections' });
    expect(await capacityOf(poolIds[1]!)).toBe(10);

    expect((await binder.bind({ poolId: BigInt(poolIds[1]!), sections: ['balcony'] })).seatCount).toBe(10);
    // Rebinding a pool replaces its own binding.
    expect((await binder.bind({ poolId: BigInt(poolIds[0]!), sections: ['stalls'] })).seatCount).toBe(10);
    expect((await db.query('SELECT count(*)::int AS n FROM pool_seating s JOIN pools p ON p.id = s.pool_id WHERE p.event_id = $1', [eventId])).rows[0]).toEqual({ n: 2 });
  });

  it('refuses an unknown section, an unknown version, a second plan version for one event, and an unknown pool, writing nothing', async () => {
    const plan = gridPlan(['stalls'], 2, 4);
    const { venueId, poolIds } = await seatedEvent(db, plan, 2);
    expect(await refusal(binder.bind({ poolId: BigInt(poolIds[0]!), sections: ['gallery'] }))).toMatchObject({ code: 'parameter_invalid', param: 'sections', message: 'The plan has no section gallery.' });
    expect(await refusal(binder.bind({ poolId: BigInt(poolIds[0]!), version: 2 }))).toMatchObject({ code: 'parameter_invalid', param: 'version' });
    expect(await refusal(binder.bind({ poolId: 999_999_999n }))).toMatchObject({ code: 'resource_missing', param: 'pool_id' });
    expect(await capacityOf(poolIds[0]!)).toBe(10);

    await binder.bind({ poolId: BigInt(poolIds[0]!), sections: ['stalls'] });
    await new SeatingPlans(db as never).import(BigInt(venueId), JSON.stringify(gridPlan(['stalls', 'annex'], 2, 4)));
    expect(await refusal(binder.bind({ poolId: BigInt(poolIds[1]!), sections: ['annex'] }))).toMatchObject({ code: 'parameter_invalid', param: 'version' });
    expect(await capacityOf(poolIds[1]!)).toBe(10);
  });

  it('refuses a binding with fewer seats than the pool has sold', async () => {
    const { poolIds } = await seatedEvent(db, gridPlan(['stalls'], 1, 4));
    await db.query('UPDATE pools SET sold = 6 WHERE id = $1', [poolIds[0]]);
    expect(await refusal(binder.bind({ poolId: BigInt(poolIds[0]!) }))).toMatchObject({ code: 'parameter_invalid', param: 'sections' });
    expect(await capacityOf(poolIds[0]!)).toBe(10);
  });
});

describe('BindSeatingPlan over gRPC', () => {
  let inventory: ServiceRuntime;
  let client: ReturnType<typeof createServiceClient<(typeof gen.inventory.InventoryService)['method']>>;

  beforeAll(async () => {
    inventory = await startInventory(loadInventoryConfig({ ...process.env, GRPC_PORT: '0', OPS_PORT: '0' }), createLogger('it', 'silent'));
    client = createServiceClient(gen.inventory.InventoryService, `127.0.0.1:${inventory.grpcPort}`);
  }, 60_000);
  afterAll(async () => {
    client.close();
    await inventory.stop();
  });

  it('binds a pool to sections of its venue plan and refuses an unknown section in the envelope', async () => {
    const { venueId, poolIds } = await seatedEvent(db, gridPlan(['stalls', 'balcony'], 2, 6));
    const poolId = BigInt(poolIds[0]!);
    const bound = await client.bindSeatingPlan({ poolId, sections: ['balcony'] }, operatorContext());
    expect(bound).toMatchObject({ object: 'pool_seating', poolId, venueId: BigInt(venueId), version: 1, sections: ['balcony'], seatCount: 12 });
    expect(await capacityOf(poolIds[0]!)).toBe(12);
    const refused = await refusal(client.bindSeatingPlan({ poolId, sections: ['gallery'] }, operatorContext()));
    expect({ code: refused?.code, param: refused?.param }).toEqual({ code: 'parameter_invalid', param: 'sections' });
  });
});
