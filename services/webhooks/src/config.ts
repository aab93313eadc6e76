import type { z } from 'zod';
import { grpcServiceEnv, loadConfig } from '@partner-api/shared';

export const webhooksEnv = grpcServiceEnv({ grpc: 50054, ops: 9404 });

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export const loadWebhooksConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig(webhooksEnv, env);
