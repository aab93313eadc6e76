/**
 * ResendDelivery (dashboard): sends the event of one of an endpoint's
 * deliveries to it again, now. The resend is an ordinary delivery, as a
 * replayed one is (D285): signed at sending, `Service-Delivery-Attempt`
 * counting on from the event's last attempt to the endpoint, retried by
 * the schedule from its own first attempt, and counted in the endpoint's
 * health (D302). An attempt of the event already on its way is brought
 * forward instead of doubled (D303). Like a replay, it needs the endpoint
 * enabled and takes the endpoint's row lock, the one failures take first
 * (D211), so it never races a disable.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, type gen, inTransaction, notFound, type Pool, type RequestContext } from '@partner-api/shared';
import type { DeliveryRepository } from '../storage/delivery-repository';
import type { ReplayRepository } from '../storage/replay-repository';
import { deliveryAttemptView, type DeliveryAttemptInit } from './delivery-view';
import type { WebhookEndpoints } from './endpoints';

type ResendRequest = MessageShape<typeof gen.webhooks.ResendDeliveryRequestSchema>;

export class Resends {
  constructor(
    private readonly pool: Pool,
    private readonly endpoints: WebhookEndpoints,
    private readonly replays: ReplayRepository,
    private readonly deliveries: DeliveryRepository,
  ) {}

  async resend(ctx: RequestContext, request: ResendRequest): Promise<DeliveryAttemptInit> {
    const endpoint = await this.endpoints.visible(ctx, request.endpointId);
    const row = await inTransaction(this.pool, async (client) => {
      const locked = await this.replays.lockEndpoint(client, ctx.organisationId, endpoint.id);
      if (!locked) throw notFound('webhook endpoint', 'endpoint_id');
      const delivery = await this.deliveries.findForEndpoint(client, endpoint.id, request.deliveryId);
      if (!delivery) throw notFound('webhook delivery', 'delivery_id');
      if (delivery.manual) throw new ApiError('parameter_invalid', 'A test send cannot be resent; send another test event.', 'delivery_id');
      if (!locked.enabled) {
        throw new ApiError('endpoint_disabled', 'The endpoint is paused or disabled; re-enable it, then resend.', 'endpoint_id');
      }
      const queued = delivery.event_stored ? await this.deliveries.queueResend(client, endpoint.id, delivery.event_id) : undefined;
      if (!queued) throw new ApiError('parameter_invalid', 'The event is older than the 30 days events are kept and cannot be resent.', 'delivery_id');
      return queued;
    });
    return deliveryAttemptView(row, endpoint.url);
  }
}
