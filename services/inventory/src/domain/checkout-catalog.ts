/**
 * The catalog of an event as a checkout needs it (the event row, its pools
 * and ticket types), kept in memory per process, so that an on-sale's holds
 * do not read it from PostgreSQL three queries at a time. Before each use the
 * snapshot's catalog version is compared with the event's (one Redis GET,
 * CatalogVersions); every catalog write replaces that version after it
 * commits (VersionedSnapshots, at most SNAPSHOT_TTL_MS old). Pools' `sold` in a snapshot is not kept
 * current: nothing on the hold path reads it (stock is Redis's counter).
 */
import type { CatalogRepository, EventRow, PoolRow, TicketTypeRow } from '../storage/catalog-repository';
import type { CatalogVersions } from '../storage/catalog-versions';
import { VersionedSnapshots, type Versioned } from './versioned-snapshots';

export interface EventCatalog {
  event: EventRow;
  pools: PoolRow[];
  types: TicketTypeRow[];
}

/** Longest a snapshot is used without reading the catalog again. */
export const SNAPSHOT_TTL_MS = 5_000;
/** Events kept per process; the oldest read is dropped first. */
const MAX_SNAPSHOTS = 1_000;

export class CheckoutCatalog {
  private readonly snapshots: VersionedSnapshots<EventCatalog>;

  constructor(
    private readonly repository: CatalogRepository,
    private readonly versions: CatalogVersions,
    now: () => number = Date.now,
  ) {
    this.snapshots = new VersionedSnapshots({ ttlMs: SNAPSHOT_TTL_MS, max: MAX_SNAPSHOTS }, now);
  }

  /** The organisation's event by id or slug, with its pools and types; undefined when it has no such event. */
  forCheckout(organisationId: number, idOrSlug: string): Promise<EventCatalog | undefined> {
    return this.snapshots.get(
      `${organisationId}/${idOrSlug}`,
      (catalog) => this.versions.current(catalog.event.id),
      () => this.read(organisationId, idOrSlug),
    );
  }

  /** After a catalog write to one of the organisation's events commits (any process): snapshots of it, and pages listing it, are read again. */
  changed(organisationId: number, eventId: string): Promise<void> {
    return this.versions.changed(organisationId, eventId);
  }

  private async read(organisationId: number, idOrSlug: string): Promise<Versioned<EventCatalog> | undefined> {
    const found = await this.repository.findEvent(organisationId, idOrSlug);
    if (!found) return undefined;
    const version = await this.versions.current(found.id);
    const [event, pools, types] = await Promise.all([
      this.repository.findEvent(organisationId, found.id),
      this.repository.poolsForEvents([found.id]),
      this.repository.ticketTypesForEvents([found.id]),
    ]);
    return event ? { value: { event, pools, types }, version } : undefined;
  }
}
