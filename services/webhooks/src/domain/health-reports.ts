/**
 * GetEndpointHealth (dashboard): an endpoint's state by the health rules
 * (`endpoint-health.ts`: how many failures it has left, when the 3-day
 * rule would disable it) and how its attempts of the last 24 hours went.
 * Re-enabling clears the failure run and the disabled fields; the 24-hour
 * figures are history and stay.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { formatOptionalTimestamp, formatTimestamp, type gen, type RequestContext } from '@partner-api/shared';
import type { DeliveryRepository } from '../storage/delivery-repository';
import { disablesAt, MAX_CONSECUTIVE_FAILURES } from './endpoint-health';
import { endpointStatus } from './endpoint-view';
import type { WebhookEndpoints } from './endpoints';

export type EndpointHealthInit = MessageInitShape<typeof gen.webhooks.EndpointHealthSchema>;

/** The window of the recent figures. */
export const RECENT_WINDOW_MS = 24 * 3_600_000;

export class HealthReports {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: DeliveryRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(ctx: RequestContext, id: bigint): Promise<EndpointHealthInit> {
    const endpoint = await this.endpoints.visible(ctx, id);
    const since = new Date(this.clock().getTime() - RECENT_WINDOW_MS);
    const stats = await this.deliveries.attemptStats(endpoint.id, since);
    return {
      endpointId: BigInt(endpoint.id),
      status: endpointStatus(endpoint),
      enabled: endpoint.enabled,
      consecutiveFailures: endpoint.consecutive_failures,
      consecutiveFailureLimit: MAX_CONSECUTIVE_FAILURES,
      failingSince: formatOptionalTimestamp(endpoint.failing_since),
      disablesAt: formatOptionalTimestamp(disablesAt(endpoint)),
      disabledAt: formatOptionalTimestamp(endpoint.disabled_at),
      disabledReason: endpoint.disabled_reason ?? undefined,
      lastSuccessAt: formatOptionalTimestamp(endpoint.last_success_at),
      lastFailureAt: formatOptionalTimestamp(endpoint.last_failure_at),
      recent: {
        since: formatTimestamp(since),
        attempts: stats.attempts,
        succeeded: stats.succeeded,
        successRate: stats.attempts === 0 ? undefined : stats.succeeded / stats.attempts,
        p95DurationMs: stats.p95_duration_ms ?? undefined,
      },
    };
  }
}
