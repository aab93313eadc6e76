/**
 * The event a path names (integer id or slug), as inventory resolves it for
 * the caller's organisation: inventory owns events, so another
 * organisation's event, or none, is its `404 resource_missing`.
 *
 * Door scanners check in at a steady rate, so a resolved id is kept for a
 * short while (EVENT_CACHE_MS) instead of asking inventory on every scan.
 * Only answers are kept, never a miss: an event created a moment ago is
 * found at once. An event belongs to its organisation for good; only a slug
 * renamed within the window can still resolve to its event for that long.
 */
import type { InventoryClient, RequestContext } from '@partner-api/shared';

export type { InventoryClient };

/** Enough for every event scanning at once; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

export class EventDirectory {
  private readonly resolved = new Map<string, { id: bigint; until: number }>();

  constructor(
    private readonly inventory: Pick<InventoryClient, 'getEvent'>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async eventId(ctx: RequestContext, idOrSlug: string): Promise<bigint> {
    const key = `${ctx.organisationId}|${idOrSlug}`;
    const hit = this.resolved.get(key);
    if (hit && hit.until > this.now()) return hit.id;
    this.resolved.delete(key);
    const event = await this.inventory.getEvent({ idOrSlug }, ctx);
    if (this.ttlMs > 0) {
      if (this.resolved.size >= MAX_ENTRIES) this.resolved.delete(this.resolved.keys().next().value!);
      this.resolved.set(key, { id: event.id, until: this.now() + this.ttlMs });
    }
    return event.id;
  }
}
