/**
 * Group commit: items added while a write is in progress are written
 * together by the next one, one write at a time. With `lingerMs`, each
 * write first waits that long for more items to join it: a write that
 * takes less time than items arrive apart would otherwise carry one or two
 * of them, a statement and a commit each.
 */
export class BatchWriter<T> {
  private pending: { item: T; done: () => void; failed: (error: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: { lingerMs?: number } = {},
  ) {}

  /** Resolves once `item` is written; rejects if the write that carried it failed. */
  add(item: T): Promise<void> {
    return new Promise((done, failed) => {
      this.pending.push({ item, done, failed });
      if (!this.writing) this.writing = this.writeAll();
    });
  }

  /** Resolves when nothing added so far is still waiting to be written. */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    while (this.pending.length > 0) {
      if (this.options.lingerMs) await new Promise((resolve) => setTimeout(resolve, this.options.lingerMs));
      const batch = this.pending;
      this.pending = [];
      try {
        await this.write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.failed(error);
      }
    }
    this.writing = undefined;
  }
}
