/**
 * Catalog reads for one organisation: the story of GET /events, /events/{id},
 * /events/{id}/ticket_types, /venues and /venues/{id}. Anything belonging to
 * another organisation is simply missing.
 */
import { createHash } from 'node:crypto';
import { ApiError, decodePosition, encodePosition, notFound, type RequestContext } from '@partner-api/shared';
import type { CatalogRepository, EventListQuery, EventRow, HydratedEvent, Page, StatusFilter, TimeFilter } from '../storage/catalog-repository';
import type { CatalogVersions } from '../storage/catalog-versions';
import type { StockStore } from '../storage/stock-store';
import { eventUrl, eventView, ticketTypeView, venueView, type CatalogSettings, type EventInit, type TicketTypeInit, type VenueInit } from './catalog-view';
import { fillEvent, renderEvent, type RenderedEvent } from './rendered-events';
import { VersionedSnapshots } from './versioned-snapshots';

export interface ListPage<T> {
  data: T[];
  pageInfo: { hasMore: boolean; nextAfter: string };
}

export interface EventListRequest {
  status: string;
  time: string;
  q?: string | undefined;
  updatedSince?: string | undefined;
  limit: number;
  after: string;
}

/**
 * How long a page of GET /events is served from memory (availability is
 * always read live): partners poll the first pages of a catalog far more
 * often than it changes. A catalog write of the organisation ends it at
 * once (its catalog version); a venue edit, or an event crossing its start
 * or end (the time filters), shows within this.
 */
export const PAGE_TTL_MS = 1_000;
/** Pages kept per process (organisation × filters × cursor); the oldest read is dropped first. */
const MAX_PAGES = 2_000;

/** Names a rendered page by its bytes: the same page gets the same tag in every inventory process. */
const jsonTag = (json: Buffer) => createHash('sha256').update(json).digest('base64url').slice(0, 22);

const STATUSES: StatusFilter[] = ['published', 'draft', 'pending_review', 'cancelled', 'ended', 'all'];
const TIMES: TimeFilter[] = ['upcoming', 'past', 'all'];

/** Words of a free-text query, safe for to_tsquery: letters and digits only. */
export function searchTerms(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 8);
}

/** The repository's page query for a GET /events request; bad filters are parameter_invalid. */
function pageQueryOf(ctx: RequestContext, request: EventListRequest, now: Date): EventListQuery {
  const status = (request.status || 'published') as StatusFilter;
  const time = (request.time || 'upcoming') as TimeFilter;
  if (!STATUSES.includes(status)) throw new ApiError('parameter_invalid', `status must be one of ${STATUSES.join(', ')}.`, 'status');
  if (!TIMES.includes(time)) throw new ApiError('parameter_invalid', `time must be one of ${TIMES.join(', ')}.`, 'time');
  const updatedSince = request.updatedSince ? new Date(request.updatedSince) : undefined;
  if (updatedSince && Number.isNaN(updatedSince.getTime())) {
    throw new ApiError('parameter_invalid', 'updated_since must be an ISO-8601 time.', 'updated_since');
  }
  return {
    organisationId: ctx.organisationId,
    status,
    time,
    terms: request.q === undefined ? undefined : searchTerms(request.q),
    updatedSince,
    limit: request.limit,
    after: decodePosition(request.after, 2) as [string, string] | undefined,
    now,
  };
}

export class Catalog {
  private readonly pages: VersionedSnapshots<Page<HydratedEvent>>;
  /** Each kept page's events rendered as JSON, for as long as the page is kept. */
  private readonly rendered = new WeakMap<Page<HydratedEvent>, { events: RenderedEvent[]; last?: { stock: string; json: Buffer; tag: string } }>();

  constructor(
    private readonly repository: CatalogRepository,
    private readonly stock: StockStore,
    private readonly versions: CatalogVersions,
    private readonly settings: CatalogSettings,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.pages = new VersionedSnapshots({ ttlMs: PAGE_TTL_MS, max: MAX_PAGES }, () => this.clock().getTime());
  }

  /**
   * The API view of several events, their venues, pools and types read in a
   * few batched queries; `repository` may be bound to a transaction. A page
   * of GET /events reads them with the page instead (listEvents).
   */
  async views(events: EventRow[], repository: CatalogRepository = this.repository): Promise<EventInit[]> {
    const eventIds = events.map((event) => event.id);
    const venueIds = [...new Set(events.flatMap((event) => (event.venue_id ? [event.venue_id] : [])))];
    const reads = [() => repository.venuesByIds(venueIds), () => repository.poolsForEvents(eventIds), () => repository.ticketTypesForEvents(eventIds)] as const;
    // On the pool the three reads go in parallel; a repository bound to a transaction has one connection, which
    // runs one query at a time (pg queues the others, a use it deprecates), so they go one after another there.
    const [venues, pools, types] =
      repository === this.repository
        ? await Promise.all([reads[0](), reads[1](), reads[2]()])
        : [await reads[0](), await reads[1](), await reads[2]()];
    return this.render(
      events.map((event) => ({
        event,
        venue: venues.get(event.venue_id ?? ''),
        pools: pools.filter((pool) => pool.event_id === event.id),
        ticketTypes: types.filter((type) => type.event_id === event.id),
      })),
    );
  }

  /** Views of events read with their venue, pools and types; availability live from the stock store, one read for all. */
  private async render(events: HydratedEvent[]): Promise<EventInit[]> {
    const availability = await this.stock.availability(events.flatMap((hydrated) => hydrated.pools));
    const now = this.clock();
    return events.map(({ event, venue, pools, ticketTypes }) => eventView(event, venue, pools, ticketTypes, availability, this.settings, now));
  }

  private async findEvent(ctx: RequestContext, idOrSlug: string): Promise<EventRow> {
    const event = await this.repository.findEvent(ctx.organisationId, idOrSlug);
    if (!event) throw notFound('event');
    return event;
  }

  /** The public page of an event (event.url). */
  eventUrl(event: EventRow): string {
    return eventUrl(this.settings, event.slug);
  }

  async getEvent(ctx: RequestContext, idOrSlug: string): Promise<EventInit> {
    const [view] = await this.views([await this.findEvent(ctx, idOrSlug)]);
    return view!;
  }

  async listEvents(ctx: RequestContext, request: EventListRequest): Promise<ListPage<EventInit>> {
    const page = await this.hydratedPage(pageQueryOf(ctx, request, this.clock()));
    return { data: await this.render(page.rows), pageInfo: { hasMore: page.hasMore, nextAfter: encodePosition(page.last) } };
  }

  /**
   * The same page as the API's JSON array (see rendered-events.ts): rendered
   * once per kept page, availability live. `tag` names the exact bytes (see
   * jsonTag); when the caller already has them (`knownTag`), `json` is left
   * out and `unchanged` set.
   */
  async listEventsJson(
    ctx: RequestContext,
    request: EventListRequest,
    knownTag = '',
  ): Promise<{ json?: Buffer; tag: string; unchanged: boolean; pageInfo: ListPage<unknown>['pageInfo'] }> {
    const page = await this.hydratedPage(pageQueryOf(ctx, request, this.clock()));
    let rendered = this.rendered.get(page);
    if (!rendered) {
      const now = this.clock();
      rendered = { events: page.rows.map(({ event, venue, pools, ticketTypes }) => renderEvent(eventView(event, venue, pools, ticketTypes, new Map(), this.settings, now), event, pools)) };
      this.rendered.set(page, rendered);
    }
    const availability = await this.stock.availability(page.rows.flatMap((hydrated) => hydrated.pools));
    // Polls between sales see the same stock: the last text is reused while every counter reads the same.
    const stock = [...availability.values()].join(',');
    if (rendered.last?.stock !== stock) {
      const json = Buffer.from(`[${rendered.events.map((event) => fillEvent(event, availability)).join(',')}]`);
      rendered.last = { stock, json, tag: jsonTag(json) };
    }
    const pageInfo = { hasMore: page.hasMore, nextAfter: encodePosition(page.last) };
    const { json, tag } = rendered.last;
    return knownTag === tag ? { tag, unchanged: true, pageInfo } : { json, tag, unchanged: false, pageInfo };
  }

  /** A page's rows, kept for PAGE_TTL_MS under the organisation's catalog version. */
  private async hydratedPage(query: EventListQuery): Promise<Page<HydratedEvent>> {
    const { now: _now, ...filters } = query;
    const page = await this.pages.get(
      JSON.stringify(filters),
      () => this.versions.organisation(query.organisationId),
      async () => {
        const version = await this.versions.organisation(query.organisationId);
        return { value: await this.repository.listHydratedEvents(query), version };
      },
    );
    return page!;
  }

  /** Every ticket type of the event, hidden ones included (status `hidden`), in one page. */
  async listTicketTypes(ctx: RequestContext, eventIdOrSlug: string): Promise<TicketTypeInit[]> {
    return this.ticketTypeViews(await this.findEvent(ctx, eventIdOrSlug));
  }

  async ticketTypeViews(event: EventRow, repository: CatalogRepository = this.repository): Promise<TicketTypeInit[]> {
    const [pools, types] = await Promise.all([repository.poolsForEvents([event.id]), repository.ticketTypesForEvents([event.id])]);
    const availability = await this.stock.availability(pools);
    const poolsById = new Map(pools.map((pool) => [pool.id, pool]));
    const now = this.clock();
    return types.map((type) => ticketTypeView(type, event, poolsById, availability, now));
  }

  async listVenues(ctx: RequestContext, limit: number, after: string): Promise<ListPage<VenueInit>> {
    const position = decodePosition(after, 1);
    const page = await this.repository.listVenues(ctx.organisationId, limit, position?.[0]);
    return { data: page.rows.map(venueView), pageInfo: { hasMore: page.hasMore, nextAfter: encodePosition(page.last) } };
  }

  async getVenue(ctx: RequestContext, id: bigint): Promise<VenueInit> {
    const venue = await this.repository.findVenue(ctx.organisationId, id.toString());
    if (!venue) throw notFound('venue');
    return venueView(venue);
  }
}
