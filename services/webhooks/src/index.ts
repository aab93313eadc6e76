export { startWebhooks, SCHEMA } from './server';
export { loadWebhooksConfig, type WebhooksConfig } from './config';
export { newEndpointSecret, verifySignature } from './domain/signature';
export { deliveryHeaders, WEBHOOK_USER_AGENT } from './domain/delivery-request';
