/** Webhook event bodies, generated from the OpenAPI document's `webhooks`: a union discriminated by `type`. */
import type { components } from './gen/api';

export type WebhookEvent = components['schemas']['WebhookEvent'];
export type WebhookEventType = WebhookEvent['type'];
/** The body of one type: `WebhookEventOf<'order.completed'>['data']['object']` is an order. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
