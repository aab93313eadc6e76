/** gRPC handlers of the webhooks service. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { DeliveryLog } from '../domain/delivery-log';
import type { DisableNotices } from '../domain/disable-notices';
import type { WebhookEndpoints } from '../domain/endpoints';
import type { EventFeed } from '../domain/event-feed';
import type { HealthReports } from '../domain/health-reports';
import type { Replays } from '../domain/replays';
import type { Resends } from '../domain/resends';
import type { TestEvents } from '../domain/test-events';

/** The beta feed, replay and delivery log. */
export interface FeedHandlers {
  feed: EventFeed;
  replays: Replays;
  deliveryLog: DeliveryLog;
}

/** What only the organiser dashboard calls (the gateway exposes none of it, D300). */
export interface DashboardHandlers {
  health: HealthReports;
  resends: Resends;
  notices: DisableNotices;
}

type WebhooksMethods = (typeof gen.webhooks.WebhooksService)['method'];

export function webhooksHandlers(
  endpoints: WebhookEndpoints,
  testEvents: TestEvents,
  { feed, replays, deliveryLog }: FeedHandlers,
  { health, resends, notices }: DashboardHandlers,
): ServiceHandlers<WebhooksMethods> {
  return {
    listEndpoints: async (_request, ctx) => ({ data: await endpoints.list(ctx) }),
    createEndpoint: (request, ctx) => endpoints.create(ctx, request),
    getEndpoint: (request, ctx) => endpoints.get(ctx, request.id),
    updateEndpoint: (request, ctx) => endpoints.update(ctx, request),
    deleteEndpoint: async (request, ctx) => {
      await endpoints.delete(ctx, request.id);
      return { deleted: true };
    },
    sendTestEvent: (request, ctx) => testEvents.send(ctx, request),
    rotateSecret: (request, ctx) => endpoints.rotateSecret(ctx, request.id),
    listEvents: (request, ctx) => feed.list(ctx, request),
    replayEndpoint: (request, ctx) => replays.replay(ctx, request),
    listDeliveries: (request, ctx) => deliveryLog.list(ctx, request),
    getEndpointHealth: (request, ctx) => health.get(ctx, request.id),
    listDeliveryAttempts: (request, ctx) => deliveryLog.listAttempts(ctx, request),
    resendDelivery: (request, ctx) => resends.resend(ctx, request),
    // Svix's "recover" is what a replay already is: the same rows, lock and count (D305).
    recoverEndpoint: (request, ctx) => replays.replay(ctx, { id: request.endpointId, since: request.since }),
    // Platform calls: the context travels with them but does not scope them (D300).
    claimDisableNotices: (request) => notices.claim(request),
    completeDisableNotice: (request) => notices.complete(request.id),
  };
}
