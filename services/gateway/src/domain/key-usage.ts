/**
 * When each key was last used, for the dashboard's key list, without a
 * PostgreSQL write per request (decision D310). Authentication notes
 * `keyId → now` in a Map (constant work, no I/O); every KEY_USAGE_FLUSH_MS
 * and once at shutdown, every key noted since the last flush is written in
 * one statement (storage/key-usage-store.ts). So `last_used_at` is exact to
 * within KEY_USAGE_FLUSH_MS, and replicas each write the newest time they
 * saw, which the statement never lets move backwards.
 */
import type { Logger } from '@partner-api/shared';

/** Writes the newest use of each key (ids and times at the same index); must not move a stored time backwards. */
export type KeyUsageFlush = (keyIds: number[], usedAt: Date[]) => Promise<void>;

export class KeyUsage {
  private noted = new Map<number, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly write: KeyUsageFlush,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The per-request call: remembers that the key was used now. */
  note(keyId: number): void {
    this.noted.set(keyId, this.clock());
  }

  /** Keys noted and not yet written (for tests and metrics). */
  get pending(): number {
    return this.noted.size;
  }

  /**
   * Writes every key noted since the last flush in one call. A flush that
   * fails keeps its entries for the next one (a use noted meanwhile is
   * newer and wins) and is logged, never thrown. Flushes run one at a time:
   * one asked for while another runs waits for it and then writes what is
   * left, so the shutdown flush also writes what a tick in progress missed.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.noted.size === 0) return;
    const batch = this.noted;
    this.noted = new Map();
    this.flushing = this.writeBatch(batch).finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  private async writeBatch(batch: Map<number, number>): Promise<void> {
    const keyIds: number[] = [];
    const usedAt: Date[] = [];
    for (const [keyId, at] of batch) {
      keyIds.push(keyId);
      usedAt.push(new Date(at));
    }
    try {
      await this.write(keyIds, usedAt);
    } catch (error) {
      this.logger.warn({ err: error, keys: batch.size }, 'writing key last-used times failed; keeping them for the next flush');
      for (const [keyId, at] of batch) {
        const newer = this.noted.get(keyId);
        if (newer === undefined || newer < at) this.noted.set(keyId, at);
      }
    }
  }
}
