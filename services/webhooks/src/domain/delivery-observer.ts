/**
 * What live deliveries report as they happen (a port: the metrics adapter
 * implements it, tests may record it). Outcomes: `succeeded` (a 2xx),
 * `http_error` (the receiver answered anything else), `no_response` (a
 * timeout, a network or TLS error, or an address the receiver policy refused).
 */
import type { DisabledReason } from './endpoint-health';

export type DeliveryOutcome = 'succeeded' | 'http_error' | 'no_response';

export interface DeliveryObserver {
  /** One attempt answered (or given up on) after `durationMs`. */
  attempted(outcome: DeliveryOutcome, durationMs: number): void;
  /** The health rules disabled an endpoint. */
  endpointDisabled(reason: DisabledReason): void;
}

export const deliveryOutcome = (response: { ok: boolean; responseStatus: number | null }): DeliveryOutcome =>
  response.ok ? 'succeeded' : response.responseStatus === null ? 'no_response' : 'http_error';
