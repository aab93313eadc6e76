/**
 * POST /webhook_endpoints/{id}/replay (beta): re-sends to one endpoint the
 * events it missed since a time. Missed means no delivery of the event to
 * the endpoint succeeded and none is on its way (D282); the replay queues
 * one ordinary delivery per missed event (signed, retried by the schedule,
 * its Service-Delivery-Attempt continuing the event's count) and answers
 * with how many it queued. Replays of one endpoint take its row lock in
 * turn, so an overlapping second replay finds the first's deliveries on
 * their way and does not queue them again: each missed event is sent once
 * per replay, never twice by two (D284). The endpoint must be enabled: a
 * replay never turns deliveries back on by itself (D283). The dashboard's
 * RecoverEndpoint is this same operation (D305).
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, formatTimestamp, type gen, inTransaction, notFound, type Pool, type RequestContext } from '@partner-api/shared';
import type { ReplayRepository, ReplayRow } from '../storage/replay-repository';
import type { WebhookEndpoints } from './endpoints';
import { parseTime, windowStart } from './event-feed';

/** The endpoint and the time to reach back to: a partner's replay, or the dashboard's recover (D305). */
type ReplayRequest = Pick<MessageShape<typeof gen.webhooks.ReplayEndpointRequestSchema>, 'id' | 'since'>;

/** The time a replay reaches back to: the given `since`, not in the future, and never before the 30 days events are kept. */
export function replaySince(raw: string, now: Date): Date {
  if (raw === '') throw new ApiError('parameter_missing', 'since is required: the time from which missed events are sent again.', 'since');
  const since = parseTime(raw, 'since');
  if (since > now) throw new ApiError('parameter_invalid', 'since must not be in the future.', 'since');
  return windowStart(since, now);
}

export class Replays {
  constructor(
    private readonly pool: Pool,
    private readonly endpoints: WebhookEndpoints,
    private readonly replays: ReplayRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async replay(ctx: RequestContext, request: ReplayRequest): Promise<ReturnType<typeof replayView>> {
    const endpoint = await this.endpoints.visible(ctx, request.id);
    const since = replaySince(request.since, this.clock());
    const replay = await inTransaction(this.pool, async (client) => {
      const locked = await this.replays.lockEndpoint(client, ctx.organisationId, endpoint.id);
      if (!locked) throw notFound('webhook endpoint');
      if (!locked.enabled) {
        throw new ApiError('endpoint_disabled', 'The endpoint is paused or disabled; re-enable it (PATCH enabled true), then replay what it missed.', 'id');
      }
      return this.replays.queueMissed(client, ctx.organisationId, endpoint.id, since);
    });
    return replayView(replay);
  }
}

export function replayView(row: ReplayRow) {
  return {
    object: 'webhook_replay',
    id: BigInt(row.id),
    endpointId: BigInt(row.endpoint_id),
    since: formatTimestamp(row.since),
    queued: row.queued,
    createdAt: formatTimestamp(row.created_at),
  };
}
