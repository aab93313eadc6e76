import { BatchWriter } from './batch-writer';

describe('BatchWriter', () => {
  it('writes a lone item at once and what arrives during a write in the next one', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const writer = new BatchWriter<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = writer.add(1);
    const rest = [writer.add(2), writer.add(3), writer.add(4)];
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    await writer.settled();
  });

  it('rejects the items of a failed write only, and settles once nothing is waiting', async () => {
    let calls = 0;
    const writer = new BatchWriter<string>(async () => {
      calls += 1;
      if (calls === 1) throw new Error('write failed');
    });
    const failed = writer.add('a');
    const later = writer.add('b');
    await expect(failed).rejects.toThrow('write failed');
    await expect(later).resolves.toBeUndefined();
    await writer.settled();
    expect(calls).toBe(2);
  });

  it('with a linger, waits that long for more items before each write', async () => {
    const writes: number[][] = [];
    const writer = new BatchWriter<number>(async (items) => void writes.push(items), { lingerMs: 30 });
    const first = writer.add(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = writer.add(2);
    expect(writes).toEqual([]);
    await Promise.all([first, second]);
    expect(writes).toEqual([[1, 2]]);
    const third = writer.add(3);
    await third;
    expect(writes).toEqual([[1, 2], [3]]);
    await writer.settled();
  });
});
