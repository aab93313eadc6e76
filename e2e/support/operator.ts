/**
 * Test setup through the platform's own operator paths: organisations and
 * keys through the gateway's gRPC service, catalog changes through
 * inventory's admin gRPC API (the same calls partnerctl makes).
 */
import {
  createPool,
  createServiceClient,
  GatewayKeys,
  gen,
  localGrpcAddress,
  operatorContext as platformContext,
  randomBase62,
  redisFromEnv,
  type GatewayClient,
  type RequestContext,
  type ServiceClient,
} from '@partner-api/shared';
import { KeyAdmission } from '@partner-api/gateway';
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

async function withGateway<T>(work: (gateway: GatewayClient) => Promise<T>): Promise<T> {
  const gateway = createServiceClient(gen.gateway.GatewayService, process.env.GATEWAY_GRPC_ADDR ?? localGrpcAddress('gateway'));
  try {
    return await work(gateway);
  } finally {
    gateway.close();
  }
}

/** A key (live unless asked) for an existing organisation, with the suites' raised rate limit. */
export function issueKey(organisationId: number, scopes: string[] = ['events:read'], mode: 'live' | 'test' = 'live'): Promise<string> {
  return keyAdmin(async (admin) => (await admin.issueKey({ organisationId, name: 'e2e', mode, scopes, rateLimit: E2E_RATE_LIMIT })).secret);
}

/**
 * Stands in for a roll's grace period running out (no operation makes
 * time pass): moves the old key's expiry into the past in the gateway's
 * table, and tells the gateways as any key change would.
 */
export async function expireNow(keyId: number): Promise<void> {
  const pool = createPool({ url: env('DATABASE_URL'), schema: 'gateway', max: 1 });
  const redis = redisFromEnv(); // one Redis or a cluster, as REDIS_URL says
  try {
    const { rows } = await pool.query<{ secret_hash: Buffer }>(
      "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1 RETURNING secret_hash",
      [keyId],
    );
    await new KeyAdmission(redis).bump(rows[0]!.secret_hash.toString('hex'));
  } finally {
    await pool.end();
    await redis.quit();
  }
}

/** Key lifecycle operations as the operator tool runs them (the gateway's gRPC service). */
export function keyAdmin<T>(work: (admin: GatewayKeys) => Promise<T>): Promise<T> {
  return withGateway((gateway) => work(new GatewayKeys(gateway)));
}

/** A fresh organisation with a live key holding the given scopes. */
export function newOrganisation(scopes: string[] = ['events:read']): Promise<{ id: number; key: string }> {
  return withGateway(async (gateway) => {
    const organisation = await gateway.createOrganisation({ name: 'E2E Org', slug: `e2e-${randomBase62(10).toLowerCase()}` }, platformContext());
    const id = Number(organisation.id);
    const key = await new GatewayKeys(gateway).issueKey({ organisationId: id, name: 'e2e', mode: 'live', scopes, rateLimit: E2E_RATE_LIMIT });
    return { id, key: key.secret };
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
