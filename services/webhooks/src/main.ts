import { runMain } from '@partner-api/shared';
import { loadWebhooksConfig } from './config';
import { startWebhooks } from './server';

runMain(() => startWebhooks(loadWebhooksConfig()));
