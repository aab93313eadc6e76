/** What every command needs: configuration, a logger and per-schema pools, closed at the end. */
import { InvalidArgumentError } from 'commander';
import { z } from 'zod';
import {
  createLogger,
  createPool,
  createServiceClient,
  databaseEnv,
  GatewayKeys,
  gen,
  operatorContext,
  redisEnv,
  createRedis,
  parseRedisTarget,
  type RedisClient,
  loadConfig,
  localGrpcAddress,
  randomBase62,
  type GatewayClient,
  type Pool,
  type RequestContext,
  type ServiceClient,
} from '@partner-api/shared';

export const cliEnv = databaseEnv.extend(redisEnv.shape).extend({
  LOG_LEVEL: z.string().default('warn'),
  GATEWAY_GRPC_ADDR: z.string().default(localGrpcAddress('gateway')),
  INVENTORY_GRPC_ADDR: z.string().default(localGrpcAddress('inventory')),
  ORDERS_GRPC_ADDR: z.string().default(localGrpcAddress('orders')),
  TICKETS_GRPC_ADDR: z.string().default(localGrpcAddress('tickets')),
  WEBHOOKS_GRPC_ADDR: z.string().default(localGrpcAddress('webhooks')),
});

type InventoryClient = ServiceClient<(typeof gen.inventory.InventoryService)['method']>;
type OrdersClient = ServiceClient<(typeof gen.orders.OrdersService)['method']>;
type TicketsClient = ServiceClient<(typeof gen.tickets.TicketsService)['method']>;
type WebhooksClient = ServiceClient<(typeof gen.webhooks.WebhooksService)['method']>;

export class CliContext {
  readonly config = loadConfig(cliEnv);
  readonly logger = createLogger('partnerctl', this.config.LOG_LEVEL);
  private readonly pools = new Map<string, Pool>();
  private gatewayClient: GatewayClient | undefined;
  private inventoryClient: InventoryClient | undefined;
  private redisClient: RedisClient | undefined;
  private ordersClient: OrdersClient | undefined;
  private webhooksClient: WebhooksClient | undefined;
  private ticketsClient: TicketsClient | undefined;

  /** Organisations and API keys: the gateway's, changed only through its gRPC service. */
  get gateway(): GatewayClient {
    this.gatewayClient ??= createServiceClient(gen.gateway.GatewayService, this.config.GATEWAY_GRPC_ADDR);
    return this.gatewayClient;
  }

  get keys(): GatewayKeys {
    return new GatewayKeys(this.gateway);
  }

  get orders(): OrdersClient {
    this.ordersClient ??= createServiceClient(gen.orders.OrdersService, this.config.ORDERS_GRPC_ADDR);
    return this.ordersClient;
  }

  get tickets(): TicketsClient {
    this.ticketsClient ??= createServiceClient(gen.tickets.TicketsService, this.config.TICKETS_GRPC_ADDR);
    return this.ticketsClient;
  }

  get webhooks(): WebhooksClient {
    this.webhooksClient ??= createServiceClient(gen.webhooks.WebhooksService, this.config.WEBHOOKS_GRPC_ADDR);
    return this.webhooksClient;
  }

  get redis(): RedisClient {
    this.redisClient ??= createRedis(parseRedisTarget(this.config.REDIS_URL, this.config.REDIS_CLUSTER_NODES), { connection: { maxRetriesPerRequest: 2 } });
    return this.redisClient;
  }

  get inventory(): InventoryClient {
    this.inventoryClient ??= createServiceClient(gen.inventory.InventoryService, this.config.INVENTORY_GRPC_ADDR);
    return this.inventoryClient;
  }

  /** Operator calls act for one organisation, as a live key would. */
  asOrganisation(organisationId: number): RequestContext {
    return operatorContext(organisationId, `cli_${randomBase62(16)}`);
  }

  pool(schema: string): Pool {
    let pool = this.pools.get(schema);
    if (!pool) {
      pool = createPool({ url: this.config.DATABASE_URL, schema, max: 2, applicationName: 'partnerctl' });
      this.pools.set(schema, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    this.gatewayClient?.close();
    this.inventoryClient?.close();
    this.ordersClient?.close();
    this.webhooksClient?.close();
    this.ticketsClient?.close();
    await this.redisClient?.quit();
    await Promise.all([...this.pools.values()].map((pool) => pool.end()));
  }
}

/** Runs a command with a context and turns failures into a message and exit code 1. */
export function action<A extends unknown[]>(run: (ctx: CliContext, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    let ctx: CliContext | undefined;
    try {
      ctx = new CliContext(); // reads the environment: a bad setting is reported like any other error
      await run(ctx, ...args);
    } catch (error) {
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    } finally {
      await ctx?.close();
    }
  };
}

/** Commander's parser for ids and counts given on the command line. */
export const positiveInt = (value: string): number => {
  const parsed = Number(value);
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(parsed)) throw new InvalidArgumentError('expected a positive whole number');
  return parsed;
};

/** Commander's parser for counts sent as int32 (the service says which range it accepts). */
export const wholeNumber = (value: string): number => {
  const parsed = Number(value);
  if (!/^[0-9]+$/.test(value) || parsed > 2 ** 31 - 1) throw new InvalidArgumentError('expected a whole number');
  return parsed;
};

/** Commander's parser for the int64 ids of platform objects (tickets, webhook endpoints). */
export const positiveId = (value: string): bigint => {
  if (!/^[1-9][0-9]{0,18}$/.test(value)) throw new InvalidArgumentError('expected an id (a positive whole number)');
  return BigInt(value);
};
