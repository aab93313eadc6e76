/**
 * POST /webhook_endpoints/{id}/test: a signed sample event (`livemode`
 * false) sent to the endpoint at once, delivered once and never retried,
 * whatever the endpoint's mode or state. A 2xx answer returns the delivery
 * (`succeeded`); anything else is `500 test_event_failed` saying what the
 * receiver did. The attempt is recorded either way, and does not count
 * towards the endpoint's health: a partner testing a receiver that is not
 * up yet must not get a live endpoint disabled.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, deliveryHeaders, type gen, type RequestContext } from '@partner-api/shared';
import type { ReceiverClient } from '../adapters/receiver-client';
import type { DeliveryRepository } from '../storage/delivery-repository';
import { signingSecrets } from './signing-secrets';
import { deliveryView, type DeliveryInit } from './delivery-view';
import type { WebhookEndpoints } from './endpoints';
import { sampleDomainEvent, testEventType } from './sample-events';

type SendTestRequest = MessageShape<typeof gen.webhooks.SendTestEventRequestSchema>;

export class TestEvents {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: DeliveryRepository,
    private readonly receivers: ReceiverClient,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async send(ctx: RequestContext, request: SendTestRequest): Promise<DeliveryInit> {
    const endpoint = await this.endpoints.visible(ctx, request.id);
    const now = this.clock();
    const event = sampleDomainEvent(testEventType(request.type), ctx.organisationId, now);
    const body = JSON.stringify(event);
    const response = await this.receivers.post(endpoint.url, deliveryHeaders(event, 1, body, signingSecrets(endpoint, now), now), body);
    const row = await this.deliveries.recordManual(endpoint.id, event.id, event.type, { succeeded: response.ok, ...response });
    if (!response.ok) throw new ApiError('test_event_failed', `The test event could not be delivered to the endpoint: ${response.error}.`);
    return deliveryView(row, endpoint.url);
  }
}
