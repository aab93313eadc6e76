/** A stored endpoint as the API's webhook_endpoint object. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { formatOptionalTimestamp, formatTimestamp, secretHint, type gen } from '@partner-api/shared';
import type { EndpointRow } from '../storage/endpoint-repository';

export type EndpointInit = MessageInitShape<typeof gen.webhooks.WebhookEndpointSchema>;

/** `disabled` while deliveries are off (paused or auto-disabled), `failing` after a failed delivery, else `enabled`. */
export function endpointStatus(row: Pick<EndpointRow, 'enabled' | 'consecutive_failures'>): 'enabled' | 'failing' | 'disabled' {
  if (!row.enabled) return 'disabled';
  return row.consecutive_failures > 0 ? 'failing' : 'enabled';
}

export function endpointView(row: EndpointRow, options: { withSecret?: boolean } = {}): EndpointInit {
  return {
    object: 'webhook_endpoint',
    id: BigInt(row.id),
    url: row.url,
    description: row.description ?? undefined,
    eventTypes: row.event_types,
    enabled: row.enabled,
    status: endpointStatus(row),
    mode: row.mode,
    consecutiveFailures: row.consecutive_failures,
    disabledAt: formatOptionalTimestamp(row.disabled_at),
    disabledReason: row.disabled_reason ?? undefined,
    lastSuccessAt: formatOptionalTimestamp(row.last_success_at),
    lastFailureAt: formatOptionalTimestamp(row.last_failure_at),
    secretHint: secretHint(row.secret),
    secret: options.withSecret ? row.secret : undefined,
    createdAt: formatTimestamp(row.created_at),
    updatedAt: formatTimestamp(row.updated_at),
  };
}
