/**
 * Domain events in the webhook body shape: what services write to the
 * outbox, what Kafka carries and what the webhooks service signs and sends.
 */
import { randomBytes } from 'node:crypto';
import type { ApiJson } from './api-json';
import { API_VERSION } from './version';

export const EVENT_TYPES = [
  'order.completed',
  'order.refunded',
  'ticket.issued',
  'ticket.transferred',
  'ticket.checked_in',
  'event.published',
  'event.updated',
  'event.cancelled',
  'event.sold_out',
  'ticket_type.low_inventory',
  'waitlist.released',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface DomainEvent {
  readonly id: string;
  readonly object: 'event';
  readonly type: EventType;
  readonly api_version: string;
  readonly created: number;
  readonly livemode: boolean;
  readonly organisation_id: number;
  readonly data: { object: ApiJson } & Record<string, ApiJson>;
  /** Added when the event is written to the outbox (outbox/sequence.ts); after `data` in the body. */
  readonly ordering?: EventOrdering;
}

/** Which object an event is about, its place among that object's events, and the object's `updated_at`. */
export interface EventOrdering {
  readonly key: string;
  readonly sequence: number;
  readonly updated_at: string;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string from unbiased bytes (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function newEventId(): string {
  return `evt_${randomBase62(24)}`;
}

export function buildEvent(
  type: EventType,
  scope: { organisationId: number; livemode: boolean },
  object: ApiJson,
  extra: Record<string, ApiJson> = {},
  now: Date = new Date(),
): DomainEvent {
  return {
    id: newEventId(),
    object: 'event',
    type,
    api_version: API_VERSION,
    created: Math.floor(now.getTime() / 1000),
    livemode: scope.livemode,
    organisation_id: scope.organisationId,
    data: { object, ...extra },
  };
}
