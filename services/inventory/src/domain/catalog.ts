/** Catalog reads for one organisation: the story of GET /events/{id} and friends. */
import { notFound, type RequestContext } from '@partner-api/shared';
import type { CatalogRepository } from '../storage/catalog-repository';
import { eventView, type CatalogSettings, type EventInit } from './catalog-view';

export class Catalog {
  constructor(
    private readonly repository: CatalogRepository,
    private readonly settings: CatalogSettings,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** An event of the caller's organisation by id or slug; anyone else's is simply missing. */
  async getEvent(ctx: RequestContext, idOrSlug: string): Promise<EventInit> {
    const event = await this.repository.findEvent(ctx.organisationId, idOrSlug);
    if (!event) throw notFound('event');
    const [venues, pools, types] = await Promise.all([
      this.repository.venuesByIds(event.venue_id ? [event.venue_id] : []),
      this.repository.poolsForEvents([event.id]),
      this.repository.ticketTypesForEvents([event.id]),
    ]);
    return eventView(event, venues.get(event.venue_id ?? ''), pools, types, this.settings, this.clock());
  }
}
