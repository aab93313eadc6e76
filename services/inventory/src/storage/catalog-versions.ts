/**
 * The catalog version of each event, in Redis: a token replaced after every
 * catalog write to the event (its row, status, pools, ticket types), so a
 * process that keeps the event's catalog in memory can tell, with one GET,
 * whether it is still current. A random token rather than a counter: after
 * Redis loses its data the key is simply missing, the first reader sets a
 * new token, and every snapshot taken before the loss no longer matches
 * (a counter would start again at values old snapshots already carry).
 * Under the event's hash tag, so it lives on the event's shard.
 */
import { randomBase62, type RedisClient } from '@partner-api/shared';

export const catalogVersionKey = (eventId: string) => `{ev:${eventId}}:catalog-version`;

export class CatalogVersions {
  constructor(private readonly redis: RedisClient) {}

  /** The event's current version; set to a new token when Redis has none. */
  async current(eventId: string): Promise<string> {
    const key = catalogVersionKey(eventId);
    const seen = await this.redis.get(key);
    if (seen !== null) return seen;
    const token = randomBase62(16);
    // Set only if still missing: two first readers agree on one token.
    return (await this.redis.set(key, token, 'NX')) === 'OK' ? token : ((await this.redis.get(key)) ?? token);
  }

  /** After a catalog write commits: every snapshot of the event is out of date. */
  async changed(eventId: string): Promise<void> {
    await this.redis.set(catalogVersionKey(eventId), randomBase62(16));
  }
}
