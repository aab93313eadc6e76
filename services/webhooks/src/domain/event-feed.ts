/**
 * GET /webhook_events (beta): the organisation's events of the last 30
 * days, oldest first in the order they were stored, each body exactly as
 * its deliveries send it. A live key reads live events, a test key test
 * events. `since` is a time (events created at or after it) or an event id
 * (events after it in the feed); `type` keeps one event type.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, decodePosition, encodePosition, EVENT_TYPES, type gen, isDryRun, type RequestContext } from '@partner-api/shared';
import type { EventFeedRepository, FeedPosition } from '../storage/event-feed-repository';

type ListEventsRequest = MessageShape<typeof gen.webhooks.ListEventsRequestSchema>;

/** How long events are kept and listed. */
export const EVENT_RETENTION_MS = 30 * 24 * 3_600_000;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);
const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

export interface FeedPage {
  dataJson: Uint8Array;
  pageInfo: { hasMore: boolean; nextAfter: string };
}

/** The earliest time a feed or a replay reaches back to: `since` where given, never before the retention window. */
export function windowStart(since: Date | undefined, now: Date): Date {
  const floor = new Date(now.getTime() - EVENT_RETENTION_MS);
  return since && since > floor ? since : floor;
}

/** An ISO-8601 time as the API accepts it, or a parameter_invalid naming `param`. */
export function parseTime(value: string, param: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(time.getTime())) throw new ApiError('parameter_invalid', `${param} must be an ISO-8601 time such as 2026-10-18T00:00:00Z.`, param);
  return time;
}

export class EventFeed {
  constructor(
    private readonly events: EventFeedRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(ctx: RequestContext, request: ListEventsRequest): Promise<FeedPage> {
    const livemode = !isDryRun(ctx);
    if (request.type !== undefined && !KNOWN_TYPES.has(request.type)) throw new ApiError('parameter_invalid', `Unknown event type "${request.type}".`, 'type');
    const limit = request.page?.limit || 25;
    if (limit < 1 || limit > 100) throw new ApiError('parameter_invalid', 'limit must be an integer from 1 to 100.', 'limit');

    let since: Date | undefined;
    let after = decodeFeedPosition(request.page?.after ?? '');
    if (request.since !== undefined && EVENT_ID.test(request.since)) {
      // A cursor position the partner already holds: the last event it processed.
      const position = await this.events.positionOf(ctx.organisationId, livemode, request.since);
      if (!position) throw new ApiError('parameter_invalid', `since: no event ${request.since} in the last 30 days of this organisation's ${livemode ? 'live' : 'test'} events.`, 'since');
      if (!after) after = position;
    } else if (request.since !== undefined) {
      since = parseTime(request.since, 'since');
    }

    const rows = await this.events.page({ organisationId: ctx.organisationId, livemode, since: windowStart(since, this.clock()), type: request.type, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const hasMore = rows.length > limit && last !== undefined;
    return {
      // The stored bodies are JSON already: written into the array as they are.
      dataJson: Buffer.from(`[${page.map((row) => row.payload).join(',')}]`),
      pageInfo: { hasMore, nextAfter: hasMore ? encodePosition([last.xid, last.seq]) : '' },
    };
  }
}

function decodeFeedPosition(after: string): FeedPosition | undefined {
  const position = decodePosition(after, 2);
  if (!position) return undefined;
  const [xid, seq] = position as [string, string];
  if (!/^[0-9]{1,19}$/.test(xid) || !/^[0-9]{1,18}$/.test(seq)) throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');
  return { xid, seq };
}
