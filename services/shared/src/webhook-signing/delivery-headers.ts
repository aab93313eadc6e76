/**
 * The headers of one delivery attempt: the spec's delivery headers, and the
 * Standard Webhooks ones beside them on every delivery (D263); Content-Type
 * and User-Agent come from the client. Used by the webhooks service and by
 * `partnerctl listen`, which forwards signed test deliveries.
 */
import { signatureHeader } from './signature';
import { standardWebhookHeaders } from './standard-webhooks';

export const WEBHOOK_USER_AGENT = 'PartnerAPI-Webhooks/1.0';

export function deliveryHeaders(event: { id: string; type: string }, attempt: number, body: string, secrets: readonly string[], now: Date): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'Service-Event-Id': event.id,
    'Service-Event-Type': event.type,
    'Service-Delivery-Attempt': String(attempt),
    'Service-Signature': signatureHeader(secrets, body, timestamp),
  };
  // Into the same object: spreading a second one copied it for every attempt.
  return standardWebhookHeaders(event.id, timestamp, body, secrets, headers);
}
