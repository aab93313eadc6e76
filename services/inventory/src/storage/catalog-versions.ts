/**
 * The catalog version of each event, in Redis: a token replaced after every
 * catalog write to the event (its row, status, pools, ticket types), so a
 * process that keeps the event's catalog in memory can tell, with one GET,
 * whether it is still current. A random token rather than a counter: after
 * Redis loses its data the key is simply missing, the first reader sets a
 * new token, and every snapshot taken before the loss no longer matches
 * (a counter would start again at values old snapshots already carry).
 * Under the event's hash tag, so it lives on the event's shard.
 *
 * Each organisation has one too, replaced with any of its events': pages
 * of GET /events are kept under it (a new event changes a page as much as
 * an edit does).
 */
import { randomBase62, sharedReadsPerTurn, type RedisClient } from '@partner-api/shared';

export const catalogVersionKey = (eventId: string) => `{ev:${eventId}}:catalog-version`;
export const organisationCatalogVersionKey = (organisationId: number) => `catalog-version:org:${organisationId}`;

export class CatalogVersions {
  /** The holds of one batch check the same event's version: one GET a turn. */
  private readonly readOfTurn: (key: string) => Promise<string>;

  constructor(private readonly redis: RedisClient) {
    this.readOfTurn = sharedReadsPerTurn((key) => this.readOrCreate(key));
  }

  /** The event's current version; set to a new token when Redis has none. */
  current(eventId: string): Promise<string> {
    return this.currentOf(catalogVersionKey(eventId));
  }

  /** The version of the organisation's whole catalog. */
  organisation(organisationId: number): Promise<string> {
    return this.currentOf(organisationCatalogVersionKey(organisationId));
  }

  /** After a catalog write to one of the organisation's events commits: every snapshot of the event, and every page of the organisation, is out of date. */
  async changed(organisationId: number, eventId: string): Promise<void> {
    await Promise.all([this.redis.set(catalogVersionKey(eventId), randomBase62(16)), this.redis.set(organisationCatalogVersionKey(organisationId), randomBase62(16))]);
  }

  private currentOf(key: string): Promise<string> {
    return this.readOfTurn(key);
  }

  private async readOrCreate(key: string): Promise<string> {
    const seen = await this.redis.get(key);
    if (seen !== null) return seen;
    const token = randomBase62(16);
    // Set only if still missing: two first readers agree on one token.
    return (await this.redis.set(key, token, 'NX')) === 'OK' ? token : ((await this.redis.get(key)) ?? token);
  }
}
