/**
 * Group commit: items added while a write is in progress are written
 * together by the next one, one write at a time. Under load a write
 * carries everything that finished during the one before it; an idle
 * writer writes a lone item at once.
 */
export class BatchWriter<T> {
  private pending: { item: T; done: () => void; failed: (error: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

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
