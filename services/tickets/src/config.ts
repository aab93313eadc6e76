import type { z } from 'zod';
import { grpcServiceEnv, loadConfig } from '@partner-api/shared';

export const ticketsEnv = grpcServiceEnv({ grpc: 50053, ops: 9403 });

export type TicketsConfig = z.infer<typeof ticketsEnv>;

export const loadTicketsConfig = (env: NodeJS.ProcessEnv = process.env): TicketsConfig => loadConfig(ticketsEnv, env);
