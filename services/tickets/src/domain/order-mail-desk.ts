/**
 * What the dashboard and partnerctl do with ticket emails (D414, D415): an
 * order's emails, a resend of the order's tickets to its buyer, and the
 * organisation's emails given up. A resend is a new row for the sender
 * loop, to the address of the order's own email (or, before that exists,
 * the address its tickets were issued to); at most `resendsPerHour` per
 * order in any hour, counted under the order's lock so two at once cannot
 * both take the last one. Test mode mails nothing.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { ApiError, type gen, inTransaction, isDryRun, isUuid, notFound, type Pool, type RequestContext } from '@partner-api/shared';
import type { MailRepository, TicketMailRow } from '../storage/mail-repository';
import type { TicketRepository } from '../storage/ticket-repository';
import { attendeeName } from './ticket-mail-content';

type TicketMailInit = MessageInitShape<typeof gen.tickets.TicketMailSchema>;

const HOUR_MS = 3_600_000;

export function ticketMailView(row: TicketMailRow): TicketMailInit {
  return {
    id: BigInt(row.id),
    kind: row.kind,
    orderId: row.order_id ?? undefined,
    ticketId: row.ticket_id === null ? undefined : BigInt(row.ticket_id),
    recipient: row.recipient,
    state: row.state,
    attempts: row.attempts,
    lastError: row.last_error ?? undefined,
    sentAt: row.sent_at?.toISOString(),
    createdAt: row.created_at.toISOString(),
    requestedBy: row.requested_by ?? undefined,
  };
}

export class OrderMailDesk {
  constructor(
    private readonly pool: Pool,
    private readonly mails: MailRepository,
    private readonly tickets: TicketRepository,
    private readonly resendsPerHour: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(ctx: RequestContext, orderId: string): Promise<TicketMailInit[]> {
    if (!isUuid(orderId)) throw new ApiError('parameter_invalid', 'order_id must be a uuid.', 'order_id');
    return (await this.mails.forOrder(ctx.organisationId, orderId)).map(ticketMailView);
  }

  async failed(ctx: RequestContext, limit: number): Promise<TicketMailInit[]> {
    const bounded = limit === 0 ? 50 : limit;
    if (bounded < 1 || bounded > 100) throw new ApiError('parameter_invalid', 'limit must be between 1 and 100.', 'limit');
    return (await this.mails.failedMails(ctx.organisationId, bounded)).map(ticketMailView);
  }

  async resend(ctx: RequestContext, orderId: string, requestedBy: string): Promise<TicketMailInit> {
    if (!isUuid(orderId)) throw new ApiError('parameter_invalid', 'order_id must be a uuid.', 'order_id');
    if (isDryRun(ctx)) throw new ApiError('parameter_invalid', 'Test mode sends no email.', 'order_id');
    const who = requestedBy.trim().slice(0, 254) || 'unknown';
    const row = await inTransaction(this.pool, async (client) => {
      await this.mails.lockOrder(client, orderId);
      const tickets = await this.tickets.forOrders(ctx.organisationId, [orderId], client);
      if (tickets.length === 0) throw notFound('order');
      const recent = await this.mails.resendsSince(ctx.organisationId, orderId, new Date(this.now().getTime() - HOUR_MS), client);
      if (recent >= this.resendsPerHour) {
        throw new ApiError('rate_limited', `This order's email was resent ${recent} times in the last hour; try again later.`, 'order_id');
      }
      const original = await this.mails.orderMail(ctx.organisationId, orderId, client);
      const first = tickets[0]!;
      const dedupeKey = `resend:${orderId}:${this.now().getTime()}:${recent + 1}`;
      await this.mails.queue(
        {
          organisationId: ctx.organisationId,
          kind: 'order_resend',
          dedupeKey,
          orderId,
          recipient: original?.recipient ?? first.attendee_email ?? '',
          recipientName: original ? original.recipient_name : attendeeName(first),
          requestedBy: who,
        },
        client,
      );
      return (await this.mails.byDedupeKey(dedupeKey, client))!;
    });
    return ticketMailView(row);
  }
}
