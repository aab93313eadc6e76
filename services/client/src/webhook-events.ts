/** Webhook event bodies, generated from the OpenAPI document's `webhooks`: a union discriminated by `type`. */
import type { webhooks } from './gen/api';

type BodyOf<T extends keyof webhooks> = NonNullable<webhooks[T]['post']['requestBody']>['content']['application/json'];

export type WebhookEvent = { [T in keyof webhooks]: BodyOf<T> }[keyof webhooks];
export type WebhookEventType = WebhookEvent['type'];
/** The body of one type: `WebhookEventOf<'order.completed'>['data']['object']` is an order. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
