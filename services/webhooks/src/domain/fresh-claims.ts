/**
 * Attempts claimed as they were written: the fan-out inserts attempt 1 of
 * new events already `sending` under this process's lease, so a sender
 * takes them from here instead of claiming them back from the table (a
 * statement, a row version and the event's bytes read again for each).
 *
 * An attempt waits here for a free sender slot only while its lease still
 * covers a whole send: one not started within `startWithinMs` of its claim
 * is handed back as stale (the caller returns it to the table), so a
 * process with slow receivers never sends an attempt whose lease another
 * process may already have taken over. At most `capacity` wait; the
 * fan-out claims no more than `room()`, the rest it schedules.
 */
export class FreshClaims<T> {
  private waiting: { item: T; claimedAt: number }[] = [];

  constructor(
    private readonly capacity: number,
    private readonly startWithinMs: number,
  ) {}

  /** How many more attempts may be claimed at the fan-out. */
  room(): number {
    return Math.max(0, this.capacity - this.waiting.length);
  }

  get size(): number {
    return this.waiting.length;
  }

  /** Attempts claimed at `claimedAt` (taken before the claiming statement began, so their lease is never shorter than assumed). */
  add(items: readonly T[], claimedAt: number): void {
    for (const item of items) this.waiting.push({ item, claimedAt });
  }

  /** Up to `limit` attempts still safe to start at `now`, oldest first, and every stale one met on the way. */
  take(limit: number, now: number): { fresh: T[]; stale: T[] } {
    const fresh: T[] = [];
    const stale: T[] = [];
    let index = 0;
    for (; index < this.waiting.length && fresh.length < limit; index += 1) {
      const { item, claimedAt } = this.waiting[index]!;
      (now - claimedAt <= this.startWithinMs ? fresh : stale).push(item);
    }
    this.waiting = this.waiting.slice(index);
    return { fresh, stale };
  }

  /** Everything still waiting, removed (at shutdown, to be returned to the table). */
  takeAll(): T[] {
    const all = this.waiting.map((entry) => entry.item);
    this.waiting = [];
    return all;
  }
}
