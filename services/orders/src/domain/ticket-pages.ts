/**
 * What a ticket page shows (D421, D422): the buyer's page of an order lists
 * the order's tickets its buyer still holds; a ticket transferred to someone
 * else leaves it and shows on that attendee's own page instead. Both pages
 * open only with their signed link (shared/web/ticket-page-link); a wrong
 * link and a missing order look the same. Tickets come from the tickets
 * service, the event from inventory, over their gRPC APIs.
 */
import { randomUUID } from 'node:crypto';
import type { MessageShape } from '@bufbuild/protobuf';
import { ApiError, isUuid, operatorContext, verifyTicketHolderToken, verifyTicketPageToken, type gen, type RequestContext } from '@partner-api/shared';
import type { OrderRepository } from '../storage/order-repository';
import { type InventoryClient, type TicketsClient } from './fulfilment';

export type PageTicket = MessageShape<typeof gen.tickets.TicketSchema>;

export interface EventDetails {
  title: string;
  startsAt: string;
  /** The venue's IANA time zone: times are shown on its clock, named. */
  timezone: string;
  /** Doors as the organiser wrote it, local time ("7:00pm"). */
  doors?: string;
  venueName?: string;
  address?: string;
  latitude?: number;
  longitude?: number;
}

export interface TicketPage {
  event: EventDetails;
  /** In id order; each with its status (valid and checked-in tickets carry a code). */
  tickets: PageTicket[];
  /** How many of the order's tickets moved to other attendees (order pages only). */
  transferredAway: number;
}

const ID = /^[1-9]\d{0,17}$/;

/** Statuses whose ticket still opens the door (a checked-in one may be shown again at re-entry). */
export const SCANNABLE_STATUSES: ReadonlySet<string> = new Set(['valid', 'checked_in']);

export const isScannable = (ticket: PageTicket): boolean => SCANNABLE_STATUSES.has(ticket.status) && ticket.barcode !== '';

const sameEmail = (a: string | undefined | null, b: string | undefined | null) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

/** Whether the order's buyer still holds this ticket: its attendee is still the buyer (a transfer names another). */
export function heldByBuyer(ticket: PageTicket, buyerEmail: string | null | undefined): boolean {
  return sameEmail(ticket.attendee?.email, buyerEmail);
}

export class TicketPages {
  constructor(
    private readonly orders: OrderRepository,
    private readonly tickets: TicketsClient,
    private readonly inventory: InventoryClient,
    private readonly secret: string,
  ) {}

  /** The buyer's page of an order, or undefined when the link is not a genuine one. */
  async forOrder(orderId: string, token: string): Promise<TicketPage | undefined> {
    if (!isUuid(orderId) || !verifyTicketPageToken({ orderId, token, secret: this.secret })) return undefined;
    const order = await this.orders.findById(orderId);
    if (!order) return undefined;
    const ctx = operatorContext(Number(order.organisation_id), randomUUID());
    const { tickets } = await this.tickets.listTicketsForOrders({ orderIds: [order.id] }, ctx);
    const held = tickets.filter((ticket) => heldByBuyer(ticket, order.customer.email));
    return { event: await this.event(order.event_id, ctx), tickets: byId(held), transferredAway: tickets.length - held.length };
  }

  /** One ticket's page for the attendee the link was made for; undefined once the ticket is someone else's. */
  async forHolder(organisationId: string, ticketId: string, token: string): Promise<TicketPage | undefined> {
    if (!ID.test(organisationId) || !ID.test(ticketId)) return undefined;
    const ctx = operatorContext(Number(organisationId), randomUUID());
    let ticket: PageTicket;
    try {
      ticket = await this.tickets.getTicket({ id: BigInt(ticketId) }, ctx);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'resource_missing') return undefined;
      throw error;
    }
    const attendeeEmail = ticket.attendee?.email ?? '';
    if (!verifyTicketHolderToken({ organisationId, ticketId, attendeeEmail, token, secret: this.secret })) return undefined;
    return { event: await this.event(ticket.eventId.toString(), ctx), tickets: [ticket], transferredAway: 0 };
  }

  private async event(eventId: string, ctx: RequestContext): Promise<EventDetails> {
    const event = await this.inventory.getEvent({ idOrSlug: eventId }, ctx);
    return {
      title: event.title,
      startsAt: event.startsAt,
      timezone: event.timezone,
      doors: event.doors || undefined,
      venueName: event.venue?.name || undefined,
      address: event.venue?.address?.formatted || undefined,
      latitude: event.venue?.lat,
      longitude: event.venue?.lng,
    };
  }
}

const byId = (tickets: PageTicket[]) => [...tickets].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
