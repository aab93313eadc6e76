export { startWebhooks, SCHEMA } from './server';
export { loadWebhooksConfig, type WebhooksConfig } from './config';
