import { batchWrites } from './write-batches';

interface Row {
  id: string;
  value: number;
}

/** A write that records each call's ids and answers each row with its value doubled, or refuses some. */
function recordingWrite(refuse: (rows: readonly Row[]) => boolean = () => false) {
  const calls: string[][] = [];
  const write = async (rows: readonly Row[]): Promise<Array<number | Error>> => {
    calls.push(rows.map((row) => row.id));
    if (refuse(rows)) throw new Error('refused');
    return rows.map((row) => (row.value < 0 ? new Error(`negative ${row.id}`) : row.value * 2));
  };
  return { calls, write };
}

describe('batchWrites', () => {
  it('writes the items asked for together in one call, each caller getting its own result', async () => {
    const { calls, write } = recordingWrite();
    const save = batchWrites<Row, number>({ key: (row) => row.id, write });
    await expect(Promise.all([save({ id: 'a', value: 1 }), save({ id: 'b', value: 2 }), save({ id: 'c', value: 3 })])).resolves.toEqual([2, 4, 6]);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('writes a repeated key after the batch, on its own', async () => {
    const { calls, write } = recordingWrite();
    const save = batchWrites<Row, number>({ key: (row) => row.id, write });
    await expect(Promise.all([save({ id: 'a', value: 1 }), save({ id: 'b', value: 2 }), save({ id: 'a', value: 5 })])).resolves.toEqual([2, 4, 10]);
    expect(calls).toEqual([['a', 'b'], ['a']]);
  });

  it('writes a refused batch again item by item, so only the bad item fails', async () => {
    const { calls, write } = recordingWrite((rows) => rows.length > 1 || rows[0]!.id === 'bad');
    const save = batchWrites<Row, number>({ key: (row) => row.id, write });
    const results = await Promise.allSettled([save({ id: 'a', value: 1 }), save({ id: 'bad', value: 2 })]);
    expect(results).toEqual([{ status: 'fulfilled', value: 2 }, { status: 'rejected', reason: new Error('refused') }]);
    expect(calls).toEqual([['a', 'bad'], ['a'], ['bad']]);
  });

  it('fails only the caller whose result is an Error, without writing anything again', async () => {
    const { calls, write } = recordingWrite();
    const save = batchWrites<Row, number>({ key: (row) => row.id, write });
    const results = await Promise.allSettled([save({ id: 'a', value: 1 }), save({ id: 'n', value: -1 }), save({ id: 'b', value: 2 })]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('negative n') },
      { status: 'fulfilled', value: 4 },
    ]);
    expect(calls).toEqual([['a', 'n', 'b']]);
    // Alone too.
    await expect(save({ id: 'n', value: -1 })).rejects.toThrow('negative n');
  });
});
