/**
 * GET /webhook_endpoints/{id}/deliveries (beta): every attempt to deliver
 * to one endpoint, newest first, with its status, response code, duration
 * and failure reason; optionally one event's, or one status. `pending`
 * stands for attempts scheduled or being sent.
 *
 * The dashboard's log (ListDeliveryAttempts) is the same listing, also by
 * event across the caller's endpoints, each attempt with what only the
 * dashboard shows (when it was due and sent, what queued it); the API's
 * object stays as it was.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, decodePosition, encodePosition, type gen, type RequestContext } from '@partner-api/shared';
import type { DeliveryRepository, DeliveryStatus, LoggedDelivery } from '../storage/delivery-repository';
import { deliveryAttemptView, deliveryView, type DeliveryAttemptInit, type DeliveryInit } from './delivery-view';
import { visibleModes, type WebhookEndpoints } from './endpoints';

type ListDeliveriesRequest = MessageShape<typeof gen.webhooks.ListDeliveriesRequestSchema>;
type ListAttemptsRequest = MessageShape<typeof gen.webhooks.ListDeliveryAttemptsRequestSchema>;

export const DELIVERY_LOG_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

const STORED_STATUSES: Record<(typeof DELIVERY_LOG_STATUSES)[number], readonly DeliveryStatus[]> = {
  pending: ['scheduled', 'sending'],
  succeeded: ['succeeded'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

interface LogPage<T> {
  data: T[];
  pageInfo: { hasMore: boolean; nextAfter: string };
}

interface LogQuery {
  endpointId?: string | undefined;
  eventId?: string | undefined;
  status?: string | undefined;
  page?: { limit: number; after: string } | undefined;
}

export class DeliveryLog {
  constructor(
    private readonly endpoints: WebhookEndpoints,
    private readonly deliveries: DeliveryRepository,
  ) {}

  async list(ctx: RequestContext, request: ListDeliveriesRequest): Promise<LogPage<DeliveryInit>> {
    const endpoint = await this.endpoints.visible(ctx, request.id);
    const page = await this.page(ctx, { endpointId: endpoint.id, eventId: request.eventId, status: request.status, page: request.page });
    return { data: page.data.map((row) => deliveryView(row, endpoint.url)), pageInfo: page.pageInfo };
  }

  /** The dashboard's log: one endpoint's, one event's (across the caller's endpoints), or both. */
  async listAttempts(ctx: RequestContext, request: ListAttemptsRequest): Promise<LogPage<DeliveryAttemptInit>> {
    if (request.endpointId === undefined && request.eventId === undefined) {
      throw new ApiError('parameter_missing', 'endpoint_id or event_id is required.', 'endpoint_id');
    }
    // Another organisation's endpoint, or a live one for a test key, is missing rather than an empty log.
    const endpointId = request.endpointId === undefined ? undefined : (await this.endpoints.visible(ctx, request.endpointId)).id;
    const page = await this.page(ctx, { endpointId, eventId: request.eventId, status: request.status, page: request.page });
    return { data: page.data.map((row) => deliveryAttemptView(row, row.endpoint_url)), pageInfo: page.pageInfo };
  }

  private async page(ctx: RequestContext, query: LogQuery): Promise<LogPage<LoggedDelivery>> {
    const status = query.status as keyof typeof STORED_STATUSES | undefined;
    if (status !== undefined && !Object.hasOwn(STORED_STATUSES, status)) {
      throw new ApiError('parameter_invalid', `status must be one of ${DELIVERY_LOG_STATUSES.join(', ')}.`, 'status');
    }
    const limit = query.page?.limit || 25;
    if (limit < 1 || limit > 100) throw new ApiError('parameter_invalid', 'limit must be an integer from 1 to 100.', 'limit');
    const beforeId = decodePosition(query.page?.after ?? '', 1)?.[0];
    if (beforeId !== undefined && !/^[1-9][0-9]{0,18}$/.test(beforeId)) throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');

    const rows = await this.deliveries.list({
      organisationId: ctx.organisationId,
      modes: visibleModes(ctx),
      endpointId: query.endpointId,
      eventId: query.eventId,
      statuses: status === undefined ? undefined : STORED_STATUSES[status],
      beforeId,
      limit: limit + 1,
    });
    const data = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { data, pageInfo: { hasMore, nextAfter: hasMore ? encodePosition([data.at(-1)!.id]) : '' } };
  }
}
