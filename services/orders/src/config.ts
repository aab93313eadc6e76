import type { z } from 'zod';
import { grpcServiceEnv, loadConfig } from '@partner-api/shared';

export const ordersEnv = grpcServiceEnv({ grpc: 50052, ops: 9402 });

export type OrdersConfig = z.infer<typeof ordersEnv>;

export const loadOrdersConfig = (env: NodeJS.ProcessEnv = process.env): OrdersConfig => loadConfig(ordersEnv, env);
