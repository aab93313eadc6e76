/**
 * GET /webhook_endpoints/{id}/deliveries (beta): every attempt to deliver
 * to one endpoint, newest first, with its status, response code, duration
 * and failure reason; optionally one event's, or one status. `pending`
 * stands for attempts scheduled or being sent.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, decodePosition, encodePosition, type gen, type RequestContext } from '@partner-api/shared';
import type { DeliveryRepository, DeliveryStatus } from '../storage/delivery-repository';
import { deliveryView, type DeliveryInit } from './delivery-view';
import type { WebhookEndpoints } from './endpoints';

type ListDeliveriesRequest = MessageShape<typeof gen.webhooks.ListDeliveriesRequestSchema>;

export const DELIVERY_LOG_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

const STORED_STATUSES: Record<(typeof DELIVERY_LOG_STATUSES)[number], readonly DeliveryStatus[]> = {
  pending: ['scheduled', 'sending'],
  succeeded: ['succeeded'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

export class DeliveryLog {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: DeliveryRepository,
  ) {}

  async list(ctx: RequestContext, request: ListDeliveriesRequest): Promise<{ data: DeliveryInit[]; pageInfo: { hasMore: boolean; nextAfter: string } }> {
    const endpoint = await this.endpoints.visible(ctx, request.id);
    const status = request.status as keyof typeof STORED_STATUSES | undefined;
    if (status !== undefined && !Object.hasOwn(STORED_STATUSES, status)) {
      throw new ApiError('parameter_invalid', `status must be one of ${DELIVERY_LOG_STATUSES.join(', ')}.`, 'status');
    }
    const limit = request.page?.limit || 25;
    if (limit < 1 || limit > 100) throw new ApiError('parameter_invalid', 'limit must be an integer from 1 to 100.', 'limit');
    const beforeId = decodePosition(request.page?.after ?? '', 1)?.[0];
    if (beforeId !== undefined && !/^[1-9][0-9]{0,18}$/.test(beforeId)) throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');

    const rows = await this.deliveries.listForEndpoint(endpoint.id, {
      eventId: request.eventId,
      statuses: status === undefined ? undefined : STORED_STATUSES[status],
      beforeId,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return {
      data: page.map((row) => deliveryView(row, endpoint.url)),
      pageInfo: { hasMore, nextAfter: hasMore ? encodePosition([page.at(-1)!.id]) : '' },
    };
  }
}
