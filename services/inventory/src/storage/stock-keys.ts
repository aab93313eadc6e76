/**
 * The Redis keys of an event's stock. Every key of one event carries the
 * hash tag `{ev:<id>}`, so the scripts over an event run on one Redis
 * Cluster shard.
 */

/** Tickets left for sale in a pool. */
export const availabilityKey = (eventId: string, poolId: string) => `{ev:${eventId}}:avail:${poolId}`;
/** Tickets that came back while people waited, kept off general sale for the pool's waiting list. */
export const waitlistReserveKey = (eventId: string, poolId: string) => `{ev:${eventId}}:wl-reserve:${poolId}`;
/** Tickets the pool's waiting entries still ask for (set from PostgreSQL by WaitlistDesk); missing means none. */
export const waitlistDemandKey = (eventId: string, poolId: string) => `{ev:${eventId}}:wl-demand:${poolId}`;
