/**
 * Values read from PostgreSQL and kept in memory per process, each with the
 * catalog version it was read under (CatalogVersions). A kept value is used
 * while it is younger than `ttlMs` and its version is still the current one
 * (one Redis GET); otherwise it is read again. The TTL bounds staleness
 * should a process die between a catalog commit and the version change.
 * Concurrent misses for one key share a single read; at most `max` keys are
 * kept, the oldest read dropped first.
 */
export interface Versioned<T> {
  value: T;
  version: string;
}

interface Snapshot<T> extends Versioned<T> {
  readAt: number;
}

export class VersionedSnapshots<T> {
  private readonly snapshots = new Map<string, Snapshot<T>>();
  private readonly reading = new Map<string, Promise<Snapshot<T> | undefined>>();

  constructor(
    private readonly options: { ttlMs: number; max: number },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The value under `key`: kept, if `currentVersion` of it still matches, or
   * else `read` (which must read the version before the rows, so a write in
   * between leaves an older version with newer rows, read again next time,
   * never the reverse). Undefined when `read` finds nothing.
   */
  async get(key: string, currentVersion: (value: T) => Promise<string>, read: () => Promise<Versioned<T> | undefined>): Promise<T | undefined> {
    const kept = this.snapshots.get(key);
    if (kept && this.now() - kept.readAt < this.options.ttlMs && (await currentVersion(kept.value)) === kept.version) return kept.value;
    let pending = this.reading.get(key);
    if (!pending) {
      const readAt = this.now();
      pending = read()
        .then((found) => found && { ...found, readAt })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    const snapshot = await pending;
    if (!snapshot) {
      this.snapshots.delete(key);
      return undefined;
    }
    this.snapshots.delete(key); // re-inserted last: the map's order is the order of reads
    this.snapshots.set(key, snapshot);
    if (this.snapshots.size > this.options.max) this.snapshots.delete(this.snapshots.keys().next().value!);
    return snapshot.value;
  }
}
