/**
 * The catalog of an event as a checkout needs it (the event row, its pools
 * and ticket types), kept in memory per process, so that an on-sale's holds
 * do not read it from PostgreSQL three queries at a time. Before each use the
 * snapshot's catalog version is compared with the event's (one Redis GET,
 * CatalogVersions); every catalog write replaces that version after it
 * commits. A snapshot is also dropped SNAPSHOT_TTL_MS after it was read,
 * whatever the version says: the bound on staleness should a process die
 * between a catalog commit and the version change. Concurrent misses for
 * one event share a single read. Pools' `sold` in a snapshot is not kept
 * current: nothing on the hold path reads it (stock is Redis's counter).
 */
import type { CatalogRepository, EventRow, PoolRow, TicketTypeRow } from '../storage/catalog-repository';
import type { CatalogVersions } from '../storage/catalog-versions';

export interface EventCatalog {
  event: EventRow;
  pools: PoolRow[];
  types: TicketTypeRow[];
}

interface Snapshot {
  catalog: EventCatalog;
  version: string;
  readAt: number;
}

/** Longest a snapshot is used without reading the catalog again. */
export const SNAPSHOT_TTL_MS = 5_000;
/** Events kept per process; the oldest read is dropped first. */
const MAX_SNAPSHOTS = 1_000;

export class CheckoutCatalog {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly reading = new Map<string, Promise<Snapshot | undefined>>();

  constructor(
    private readonly repository: CatalogRepository,
    private readonly versions: CatalogVersions,
    private readonly now: () => number = Date.now,
  ) {}

  /** The organisation's event by id or slug, with its pools and types; undefined when it has no such event. */
  async forCheckout(organisationId: number, idOrSlug: string): Promise<EventCatalog | undefined> {
    const key = `${organisationId}/${idOrSlug}`;
    const kept = this.snapshots.get(key);
    if (kept && this.now() - kept.readAt < SNAPSHOT_TTL_MS && (await this.versions.current(kept.catalog.event.id)) === kept.version) {
      return kept.catalog;
    }
    let pending = this.reading.get(key);
    if (!pending) {
      pending = this.read(organisationId, idOrSlug).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    const snapshot = await pending;
    if (!snapshot) {
      this.snapshots.delete(key);
      return undefined;
    }
    this.keep(key, snapshot);
    return snapshot.catalog;
  }

  /** After a catalog write to the event commits (any process): snapshots of it are read again. */
  changed(eventId: string): Promise<void> {
    return this.versions.changed(eventId);
  }

  private async read(organisationId: number, idOrSlug: string): Promise<Snapshot | undefined> {
    const readAt = this.now();
    const found = await this.repository.findEvent(organisationId, idOrSlug);
    if (!found) return undefined;
    // The version first, then the rows: a write that lands in between leaves an older version with newer rows (read again next time), never the reverse.
    const version = await this.versions.current(found.id);
    const [event, pools, types] = await Promise.all([
      this.repository.findEvent(organisationId, found.id),
      this.repository.poolsForEvents([found.id]),
      this.repository.ticketTypesForEvents([found.id]),
    ]);
    return event ? { catalog: { event, pools, types }, version, readAt } : undefined;
  }

  private keep(key: string, snapshot: Snapshot): void {
    this.snapshots.delete(key); // re-inserted last: the map's order is the order of reads
    this.snapshots.set(key, snapshot);
    if (this.snapshots.size > MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value!);
  }
}
