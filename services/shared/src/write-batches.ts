/**
 * Writes gathered into one statement: every write asked for in the same tick
 * (an on-sale's concurrent checkouts) reaches PostgreSQL as one multi-row
 * statement and one commit, instead of one each. DataLoader does the
 * gathering (its cache off: every call writes). `write` receives items with
 * distinct keys and returns one result per item, in order. Around it:
 *   - a second item with a key already in the batch (a retry racing its first
 *     attempt) is written on its own after the batch, so it sees the first's
 *     row exactly as it would have without batching;
 *   - a batch the database refuses is written again item by item, so one bad
 *     row fails only its own caller;
 *   - `write` may answer an Error in place of an item's result, which fails
 *     that caller alone.
 */
import DataLoader from 'dataloader';

export interface WriteBatchOptions<I, O> {
  /** What makes two items the same row. */
  key: (item: I) => string;
  /**
   * One statement for all the items (distinct keys); one result per item, in
   * order. An Error in an item's place fails that item's caller alone (a
   * batch written as several calls, one of which failed).
   */
  write: (items: readonly I[]) => Promise<Array<O | Error>>;
  /** Items in one statement at most (default 200); more make several batches. */
  maxBatch?: number;
}

export function batchWrites<I, O>(options: WriteBatchOptions<I, O>): (item: I) => Promise<O> {
  const writeOne = async (item: I): Promise<O> => {
    const [result] = await options.write([item]);
    if (result instanceof Error) throw result;
    return result!;
  };
  const loader = new DataLoader<I, O>(
    async (items) => {
      const keys = new Set<string>();
      const firsts: I[] = [];
      const repeats = new Set<number>();
      items.forEach((item, index) => {
        const key = options.key(item);
        if (keys.has(key)) {
          repeats.add(index);
        } else {
          keys.add(key);
          firsts.push(item);
        }
      });
      let written: Array<O | Error>;
      try {
        written = firsts.length === 1 ? [await writeOne(firsts[0]!)] : await options.write(firsts);
      } catch (error) {
        if (firsts.length === 1) throw error;
        written = await Promise.all(firsts.map((item) => writeOne(item).catch((failure: unknown) => failure as Error)));
      }
      const results: Array<O | Error> = [];
      let next = 0;
      for (const [index, item] of items.entries()) {
        if (!repeats.has(index)) results.push(written[next++]!);
        else results.push(await writeOne(item).catch((failure: unknown) => failure as Error));
      }
      return results;
    },
    { cache: false, maxBatchSize: options.maxBatch ?? 200 },
  );
  return (item) => loader.load(item);
}
