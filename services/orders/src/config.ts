import { z } from 'zod';
import { commonEnv, databaseEnv, kafkaEnv, loadConfig } from '@partner-api/shared';

export const ordersEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9402),
    GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50052),
  });

export type OrdersConfig = z.infer<typeof ordersEnv>;

export const loadOrdersConfig = (env: NodeJS.ProcessEnv = process.env): OrdersConfig => loadConfig(ordersEnv, env);
