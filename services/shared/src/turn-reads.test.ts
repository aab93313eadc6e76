import { setImmediate as nextTurn } from 'node:timers/promises';
import { sharedReadsPerTurn } from './turn-reads';

describe('sharedReadsPerTurn', () => {
  it('makes one read for the callers of one turn with the same key, and one per key', async () => {
    const reads: string[] = [];
    const read = sharedReadsPerTurn(async (key: string) => {
      reads.push(key);
      return `${key}:${reads.length}`;
    });
    const answers = await Promise.all([read('a'), read('a'), read('b'), read('a')]);
    expect(reads).toEqual(['a', 'b']);
    expect(answers).toEqual(['a:1', 'a:1', 'b:2', 'a:1']);
  });

  it('reads again in a later turn, even while the earlier read is still in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let count = 0;
    const read = sharedReadsPerTurn(async () => {
      count += 1;
      const mine = count;
      await gate;
      return mine;
    });
    const first = read('k');
    await nextTurn();
    const second = read('k');
    release();
    expect(await first).toBe(1);
    expect(await second).toBe(2);
  });

  it('gives every sharer the failure of the shared read, and does not keep it for the next turn', async () => {
    let fail = true;
    const read = sharedReadsPerTurn(async () => {
      if (fail) throw new Error('away');
      return 'back';
    });
    await expect(Promise.all([read('k'), read('k')])).rejects.toThrow('away');
    fail = false;
    await nextTurn();
    await expect(read('k')).resolves.toBe('back');
  });
});
