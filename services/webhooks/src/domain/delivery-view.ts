/**
 * A delivery attempt as the API's webhook_delivery object. The log shows
 * attempts scheduled or being sent as `pending` (D285).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { formatOptionalTimestamp, formatTimestamp, type gen } from '@partner-api/shared';
import type { DeliveryRow } from '../storage/delivery-repository';

export type DeliveryInit = MessageInitShape<typeof gen.webhooks.WebhookDeliverySchema>;

export function deliveryView(row: DeliveryRow, endpointUrl: string): DeliveryInit {
  return {
    object: 'webhook_delivery',
    id: BigInt(row.id),
    endpointId: BigInt(row.endpoint_id),
    endpointUrl,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status === 'scheduled' || row.status === 'sending' ? 'pending' : row.status,
    responseStatus: row.response_status ?? undefined,
    durationMs: row.duration_ms,
    error: row.error ?? undefined,
    failureReason: row.failure_reason ?? undefined,
    replayId: row.replay_id === null ? undefined : BigInt(row.replay_id),
    manual: row.manual,
    nextRetryAt: formatOptionalTimestamp(row.next_retry_at),
    createdAt: formatTimestamp(row.created_at),
  };
}

export type DeliveryAttemptInit = MessageInitShape<typeof gen.webhooks.DeliveryAttemptSchema>;

/** What queued an attempt's round: its event's fan-out, a replay, a resend from the dashboard, or a test send. */
export function deliveryOrigin(row: Pick<DeliveryRow, 'manual' | 'replay_id' | 'resend'>): 'test' | 'replay' | 'resend' | 'event' {
  if (row.manual) return 'test';
  if (row.replay_id !== null) return 'replay';
  return row.resend ? 'resend' : 'event';
}

/** An attempt as the dashboard's log shows it: the API's object and when it was due and sent, and why it was queued. */
export function deliveryAttemptView(row: DeliveryRow, endpointUrl: string): DeliveryAttemptInit {
  return {
    delivery: deliveryView(row, endpointUrl),
    sentAt: formatOptionalTimestamp(row.sent_at),
    dueAt: formatTimestamp(row.due_at),
    origin: deliveryOrigin(row),
    retry: row.attempt > row.first_attempt,
  };
}
