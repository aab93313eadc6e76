import { z } from 'zod';
import { grpcServiceEnv, loadConfig } from '@partner-api/shared';

export const ticketsEnv = grpcServiceEnv({ grpc: 50053, ops: 9403 }).extend({
  /** Inventory resolves the event of an attendee list or a check-in (id or slug, in the caller's organisation). */
  INVENTORY_GRPC_ADDR: z.string().default('127.0.0.1:50051'),
  /** How long a resolved event id is reused before inventory is asked again (0: always ask). */
  EVENT_CACHE_MS: z.coerce.number().int().nonnegative().default(30_000),
});

export type TicketsConfig = z.infer<typeof ticketsEnv>;

export const loadTicketsConfig = (env: NodeJS.ProcessEnv = process.env): TicketsConfig => loadConfig(ticketsEnv, env);
