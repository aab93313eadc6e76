import { z } from 'zod';
import { grpcServiceEnv, loadConfig } from '@partner-api/shared';

export const ordersEnv = grpcServiceEnv({ grpc: 50052, ops: 9402 }).extend({
  INVENTORY_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** Where customers pay: checkout_url is <base>/checkout/<session id>. */
  CHECKOUT_BASE_URL: z.string().url().default('http://127.0.0.1:4100'),
  /** How long a live session holds its tickets ("about 15 minutes"). */
  HOLD_SECONDS: z.coerce.number().int().positive().default(900),
});

export type OrdersConfig = z.infer<typeof ordersEnv>;

export const loadOrdersConfig = (env: NodeJS.ProcessEnv = process.env): OrdersConfig => loadConfig(ordersEnv, env);
