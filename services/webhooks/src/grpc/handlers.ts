/** gRPC handlers of the webhooks service. */
import type { gen, ServiceHandlers } from '@partner-api/shared';
import type { DeliveryLog } from '../domain/delivery-log';
import type { WebhookEndpoints } from '../domain/endpoints';
import type { EventFeed } from '../domain/event-feed';
import type { Replays } from '../domain/replays';
import type { TestEvents } from '../domain/test-events';

/** The beta feed, replay and delivery log. */
export interface FeedHandlers {
  feed: EventFeed;
  replays: Replays;
  deliveryLog: DeliveryLog;
}

type WebhooksMethods = (typeof gen.webhooks.WebhooksService)['method'];

export function webhooksHandlers(endpoints: WebhookEndpoints, testEvents: TestEvents, { feed, replays, deliveryLog }: FeedHandlers): ServiceHandlers<WebhooksMethods> {
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
  };
}
