/**
 * GET /events/{id}/attendees: every ticket of one of the organisation's
 * events by id, void ones left out and refunded ones kept, filtered by
 * check-in state and `updated_since`, in keyset pages on the ticket id.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, decodePosition, encodePosition, type gen, type RequestContext } from '@partner-api/shared';
import type { TicketRepository } from '../storage/ticket-repository';
import type { EventDirectory } from './event-directory';
import { ticketView, type TicketInit } from './ticket-view';

type ListRequest = MessageShape<typeof gen.tickets.ListAttendeesRequestSchema>;

export interface AttendeePage {
  data: TicketInit[];
  pageInfo: { hasMore: boolean; nextAfter: string };
}

const TICKET_ID = /^[1-9][0-9]{0,18}$/;

/** The listing's parameters as the repository takes them; anything malformed is `400 parameter_invalid`. */
export function attendeeQuery(request: Pick<ListRequest, 'updatedSince' | 'page'>): { updatedSince?: Date; afterId?: string; limit: number } {
  let updatedSince: Date | undefined;
  if (request.updatedSince) {
    updatedSince = new Date(request.updatedSince);
    if (Number.isNaN(updatedSince.getTime())) throw new ApiError('parameter_invalid', 'updated_since must be an ISO-8601 time.', 'updated_since');
  }
  const position = decodePosition(request.page?.after ?? '', 1);
  if (position && !TICKET_ID.test(position[0]!)) throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');
  const limit = Math.min(Math.max(request.page?.limit || 25, 1), 100);
  return { updatedSince, afterId: position?.[0], limit };
}

export class Attendees {
  constructor(
    private readonly repository: TicketRepository,
    private readonly events: EventDirectory,
  ) {}

  async list(ctx: RequestContext, request: ListRequest): Promise<AttendeePage> {
    const query = attendeeQuery(request);
    const eventId = await this.events.eventId(ctx, request.eventIdOrSlug);
    const rows = await this.repository.listForEvent({
      organisationId: ctx.organisationId,
      eventId: eventId.toString(),
      checkedIn: request.checkedIn,
      ...query,
    });
    const page = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    return {
      data: page.map(ticketView),
      pageInfo: { hasMore, nextAfter: hasMore ? encodePosition([page[page.length - 1]!.id]) : '' },
    };
  }
}
