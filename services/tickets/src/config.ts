import { z } from 'zod';
import { commonEnv, databaseEnv, kafkaEnv, loadConfig } from '@partner-api/shared';

export const ticketsEnv = commonEnv
  .extend(databaseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9403),
    GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50053),
  });

export type TicketsConfig = z.infer<typeof ticketsEnv>;

export const loadTicketsConfig = (env: NodeJS.ProcessEnv = process.env): TicketsConfig => loadConfig(ticketsEnv, env);
