/**
 * Test setup through the platform's own operator paths: organisations and
 * keys with the gateway's KeyAdmin, catalog changes through inventory's
 * admin gRPC API (the same calls partnerctl makes).
 */
import { createPool, createServiceClient, gen, localGrpcAddress, randomBase62, redisFromEnv, type RedisClient, type RequestContext, type ServiceClient } from '@partner-api/shared';
import { KeyAdmin, KeyAdmission, KeyRepository } from '@partner-api/gateway';
import { env } from './api';

export type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;

export function inventoryClient(): InventoryClient {
  return createServiceClient(gen.inventory.InventoryService, process.env.INVENTORY_GRPC_ADDR ?? localGrpcAddress('inventory'));
}

export type OrdersClient = ServiceClient<(typeof gen.orders.OrdersService)['method']>;

export function ordersClient(): OrdersClient {
  return createServiceClient(gen.orders.OrdersService, process.env.ORDERS_GRPC_ADDR ?? localGrpcAddress('orders'));
}

export const operatorContext = (organisationId: number): RequestContext => ({
  organisationId,
  mode: 'live',
  keyId: 0,
  requestId: `e2e_${randomBase62(12)}`,
});

/** Suites make more requests than a default key's 120 a minute: their keys carry a custom limit. */
const E2E_RATE_LIMIT = 100_000;

async function withKeyAdmin<T>(work: (admin: KeyAdmin, pool: ReturnType<typeof createPool>, redis: RedisClient) => Promise<T>): Promise<T> {
  const pool = createPool({ url: env('DATABASE_URL'), schema: 'gateway', max: 2 });
  const redis = redisFromEnv(); // one Redis or a cluster, as REDIS_URL says
  try {
    return await work(new KeyAdmin(new KeyRepository(pool), { pool, notifier: new KeyAdmission(redis) }), pool, redis);
  } finally {
    await pool.end();
    await redis.quit();
  }
}

/** A key (live unless asked) for an existing organisation, with the suites' raised rate limit. */
export function issueKey(organisationId: number, scopes: string[] = ['events:read'], mode: 'live' | 'test' = 'live'): Promise<string> {
  return withKeyAdmin(async (admin) =>
    (await admin.issueKey({ organisationId, name: 'e2e', mode, scopes, rateLimit: E2E_RATE_LIMIT })).secret,
  );
}

/**
 * Stands in for a roll's grace period running out: moves the old key's
 * expiry into the past, and tells the gateways as any key change would.
 */
export function expireNow(keyId: number): Promise<void> {
  return withKeyAdmin(async (_, pool, redis) => {
    const { rows } = await pool.query<{ secret_hash: Buffer }>(
      "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1 RETURNING secret_hash",
      [keyId],
    );
    await new KeyAdmission(redis).bump(rows[0]!.secret_hash.toString('hex'));
  });
}

/** Key lifecycle operations as the operator tool runs them. */
export function keyAdmin<T>(work: (admin: KeyAdmin, pool: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  return withKeyAdmin(work);
}

/** A fresh organisation with a live key holding the given scopes. */
export function newOrganisation(scopes: string[] = ['events:read']): Promise<{ id: number; key: string }> {
  return withKeyAdmin(async (admin) => {
    const organisation = await admin.createOrganisation('E2E Org', `e2e-${randomBase62(10).toLowerCase()}`);
    const key = await admin.issueKey({ organisationId: organisation.id, name: 'e2e', mode: 'live', scopes, rateLimit: E2E_RATE_LIMIT });
    return { id: organisation.id, key: key.secret };
  });
}

export const uniqueSlug = (prefix: string) => `${prefix}-${randomBase62(8).toLowerCase()}`;

/**
 * A published event a week out with one pool of `capacity` and one ticket
 * type on it (40.00, no fee, up to 4 an order), made through inventory's admin API.
 */
export async function publishedEvent(
  inventory: InventoryClient,
  organisationId: number,
  options: { slugPrefix: string; title: string; capacity: number },
): Promise<{ slug: string; poolId: bigint; typeId: bigint }> {
  const ctx = operatorContext(organisationId);
  const slug = uniqueSlug(options.slugPrefix);
  await inventory.upsertEvent({ fields: { slug, title: options.title, startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(), timezone: 'Australia/Sydney' } }, ctx);
  const pool = await inventory.upsertPool({ eventIdOrSlug: slug, fields: { name: 'Floor', capacity: BigInt(options.capacity) } }, ctx);
  const type = await inventory.upsertTicketType({ eventIdOrSlug: slug, fields: { name: 'GA', price: '40.00', bookingFee: '0.00', maxPerOrder: 4, poolIds: [pool.id] } }, ctx);
  await inventory.changeEventStatus({ idOrSlug: slug, action: 'publish' }, ctx);
  return { slug, poolId: pool.id, typeId: type.id };
}
