export { createPartnerClient, type PartnerClient, type PartnerClientOptions, type WriteOptions } from './client';
export { PartnerApiError, PartnerApiConnectionError, type ErrorCode, type ErrorType } from './errors';
export { verifyWebhook, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS, type VerifyOptions, type WebhookVerificationFailure } from './verify-webhook';
export type { WebhookEvent, WebhookEventOf, WebhookEventType } from './webhook-events';
export type { RetryOptions } from './retry-policy';
export type { components, paths, operations, webhooks } from './gen/api';
