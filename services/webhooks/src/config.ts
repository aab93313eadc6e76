import { z } from 'zod';
import { commonEnv, databaseEnv, kafkaEnv, loadConfig } from '@partner-api/shared';

export const webhooksEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9404),
    GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50054),
  });

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig(webhooksEnv, env);
