/** What a partner's receiver does with the deliveries it gets. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedRequest, Receiver } from '../../services/webhooks/test/support';

/** Checks Service-Signature: HMAC-SHA256 of `<t>.<body>` under the whole secret, any v1 matching, `t` within 5 minutes. */
export function partnerAccepts(header: string, body: string, secret: string): boolean {
  const parts = header.split(',').map((part) => part.split('='));
  const t = parts.find(([name]) => name === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([name, value]) => name === 'v1' && value?.length === 64 && timingSafeEqual(Buffer.from(value, 'hex'), expected));
}

/** The first delivery to `path` of an event of `type` (waits up to `timeoutMs`). */
export async function deliveryOf(receiver: Receiver, path: string, type: string, timeoutMs = 20_000): Promise<ReceivedRequest> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = receiver.requests.find((request) => request.path === path && request.headers['service-event-type'] === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} delivered to ${path} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
