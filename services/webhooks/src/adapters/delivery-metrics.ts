/** Live deliveries as Prometheus metrics: attempts by outcome with their latency, and endpoints disabled by reason. */
import { Counter, Histogram, type Registry } from '@partner-api/shared';
import type { DeliveryObserver, DeliveryOutcome } from '../domain/delivery-observer';
import type { DisabledReason } from '../domain/endpoint-health';

export class DeliveryMetrics implements DeliveryObserver {
  private readonly deliveries: Histogram<'outcome'>;
  private readonly disabled: Counter<'reason'>;

  constructor(registry: Registry) {
    this.deliveries = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Live delivery attempts by outcome (succeeded, http_error, no_response), and how long each POST took to be answered',
      labelNames: ['outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.disabled = new Counter({
      name: 'webhook_endpoints_disabled_total',
      help: 'Endpoints disabled by the health rules, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
  }

  attempted(outcome: DeliveryOutcome, durationMs: number): void {
    this.deliveries.observe({ outcome }, durationMs / 1000);
  }

  endpointDisabled(reason: DisabledReason): void {
    this.disabled.inc({ reason });
  }
}
