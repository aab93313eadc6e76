import { z } from 'zod';
import { commonEnv, databaseEnv, kafkaEnv, loadConfig, redisEnv } from '@partner-api/shared';

export const inventoryEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(redisEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9401),
    GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
    PUBLIC_SITE_URL: z.string().url().default('https://tickets.example.com'),
  });

export type InventoryConfig = z.infer<typeof inventoryEnv>;

export const loadInventoryConfig = (env: NodeJS.ProcessEnv = process.env): InventoryConfig =>
  loadConfig(inventoryEnv, env);
