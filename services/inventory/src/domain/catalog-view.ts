/**
 * Turns catalog rows into API objects. Everything time- or stock-dependent
 * (event `ended`, `sold_out`, prices, remaining tickets, ticket type status)
 * is derived at read time so it is never stale.
 */
import { formatCents, formatOptionalTimestamp, formatTimestamp, type gen } from '@partner-api/shared';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { EventRow, PoolRow, TicketTypeRow, VenueRow } from '../storage/catalog-repository';

export type EventInit = MessageInitShape<typeof gen.inventory.EventSchema>;
export type VenueInit = MessageInitShape<typeof gen.inventory.VenueSchema>;

export interface CatalogSettings {
  /** Public site where event pages live, e.g. https://tickets.example.com */
  publicSiteUrl: string;
}

/** The public page of an event (event.url). */
export const eventUrl = (settings: CatalogSettings, slug: string) => `${settings.publicSiteUrl}/e/${slug}`;

/** Live availability per pool id (from the stock store); null = uncapped. */
export type Availability = Map<string, number | null>;

export function eventStatus(event: EventRow, now: Date): string {
  if (event.status === 'cancelled') return 'cancelled';
  const endedAt = event.ends_at ?? event.starts_at;
  return endedAt.getTime() <= now.getTime() ? 'ended' : event.status;
}

export function ticketTypeStatus(type: TicketTypeRow, event: EventRow, available: number | null, now: Date): string {
  if (type.hidden) return 'hidden';
  const t = now.getTime();
  const salesOpen = type.sale_starts_at ?? event.on_sale_at;
  if (salesOpen && salesOpen.getTime() > t) return 'not_yet_on_sale';
  const salesClose = type.sale_ends_at ?? event.ends_at ?? event.starts_at;
  if (salesClose.getTime() <= t || eventStatus(event, now) === 'ended') return 'sale_ended';
  if (available === 0) return 'sold_out';
  return 'on_sale';
}

export function venueView(venue: VenueRow): VenueInit {
  const locality = [venue.locality, venue.state, venue.postal_code].join(' ');
  return {
    object: 'venue',
    id: BigInt(venue.id),
    name: venue.name,
    slug: venue.slug,
    address: {
      line1: venue.line1,
      line2: venue.line2 ?? undefined,
      locality: venue.locality,
      state: venue.state,
      postalCode: venue.postal_code,
      country: venue.country,
      formatted: [venue.line1, venue.line2, locality].filter(Boolean).join(', '),
    },
    lat: venue.lat ?? undefined,
    lng: venue.lng ?? undefined,
    url: venue.url ?? undefined,
    phone: venue.phone ?? undefined,
  };
}

export type TicketTypeInit = MessageInitShape<typeof gen.inventory.TicketTypeSchema>;

export function ticketTypeView(
  type: TicketTypeRow,
  event: EventRow,
  pools: Map<string, PoolRow>,
  availability: Availability,
  now: Date,
): TicketTypeInit {
  const pool = pools.get(type.pool_ids[0] ?? '');
  const available = pool ? (availability.get(pool.id) ?? null) : 0;
  return {
    object: 'ticket_type',
    id: BigInt(type.id),
    poolId: pool ? BigInt(pool.id) : 0n,
    poolName: pool?.name ?? '',
    eventId: BigInt(type.event_id),
    name: type.name,
    description: type.description ?? undefined,
    price: formatCents(BigInt(type.price_cents)),
    bookingFee: formatCents(BigInt(type.booking_fee_cents)),
    currency: 'AUD',
    feesIncluded: true,
    gstApplies: type.gst_applies,
    minPerOrder: type.min_per_order,
    maxPerOrder: type.max_per_order,
    status: ticketTypeStatus(type, event, available, now),
    saleStartsAt: formatOptionalTimestamp(type.sale_starts_at),
    saleEndsAt: formatOptionalTimestamp(type.sale_ends_at),
    available: available === null ? undefined : BigInt(available),
    capacity: pool?.capacity == null ? undefined : BigInt(pool.capacity),
    seated: type.seated,
  };
}

/** The parts of an event's view that move with live availability: sold out, and tickets left (undefined when any pool is uncapped). */
export function liveStock(event: Pick<EventRow, 'marked_sold_out'>, pools: Pick<PoolRow, 'id'>[], availability: Availability): { soldOut: boolean; remaining: number | undefined } {
  const left = pools.map((pool) => availability.get(pool.id) ?? null);
  const uncapped = left.some((available) => available === null);
  const everyPoolSoldOut = pools.length > 0 && left.every((available) => available === 0);
  return {
    soldOut: event.marked_sold_out || everyPoolSoldOut,
    remaining: uncapped ? undefined : left.reduce<number>((sum, available) => sum + (available ?? 0), 0),
  };
}

export function eventView(
  event: EventRow,
  venue: VenueRow | undefined,
  pools: PoolRow[],
  types: TicketTypeRow[],
  availability: Availability,
  settings: CatalogSettings,
  now: Date,
): EventInit {
  const purchasable = types.filter((type) => !type.hidden).map((type) => BigInt(type.price_cents));
  const min = purchasable.length ? purchasable.reduce((a, b) => (b < a ? b : a)) : undefined;
  const max = purchasable.length ? purchasable.reduce((a, b) => (b > a ? b : a)) : undefined;
  const { soldOut, remaining } = liveStock(event, pools, availability);
  return {
    object: 'event',
    id: BigInt(event.id),
    slug: event.slug,
    title: event.title,
    summary: event.summary ?? undefined,
    description: event.description ?? undefined,
    status: eventStatus(event, now),
    startsAt: formatTimestamp(event.starts_at),
    endsAt: formatOptionalTimestamp(event.ends_at),
    timezone: event.timezone,
    doors: event.doors ?? undefined,
    url: eventUrl(settings, event.slug),
    imageUrl: event.image_url ?? undefined,
    soldOut,
    onSaleAt: formatOptionalTimestamp(event.on_sale_at),
    venue: venue ? venueView(venue) : undefined,
    ticketing: {
      currency: 'AUD',
      minPrice: min === undefined ? undefined : formatCents(min),
      maxPrice: max === undefined ? undefined : formatCents(max),
      ticketsRemaining: remaining === undefined ? undefined : BigInt(remaining),
    },
    categories: event.categories,
    createdAt: formatTimestamp(event.created_at),
    updatedAt: formatTimestamp(event.updated_at),
  };
}
