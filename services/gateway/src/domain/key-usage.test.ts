import { KeyUsage } from './key-usage';

type Written = Array<Record<number, string>>;

/** A recorder with a hand-set clock and a flush function that records each batch (or fails while `failing`). */
function recorder() {
  let now = Date.parse('2026-11-25T10:00:00Z');
  const written: Written = [];
  const state: { failing: boolean; calls: number; gate?: Promise<void> | undefined } = { failing: false, calls: 0 };
  const warnings: unknown[] = [];
  const usage = new KeyUsage(
    async (keyIds, usedAt) => {
      state.calls += 1;
      await state.gate;
      if (state.failing) throw new Error('connection refused');
      written.push(Object.fromEntries(keyIds.map((id, i) => [id, usedAt[i]!.toISOString()])));
    },
    { warn: (...args: unknown[]) => void warnings.push(args) },
    () => now,
  );
  return {
    usage,
    written,
    state,
    warnings,
    at: (iso: string) => {
      now = Date.parse(iso);
    },
  };
}

describe('KeyUsage', () => {
  it('writes every key noted since the last flush in one call, each at its newest use', async () => {
    const { usage, written, at } = recorder();
    at('2026-11-25T10:00:01Z');
    usage.note(7);
    at('2026-11-25T10:00:02Z');
    usage.note(8);
    at('2026-11-25T10:00:03Z');
    usage.note(7);
    expect(usage.pending).toBe(2);
    await usage.flush();
    expect(written).toEqual([{ 7: '2026-11-25T10:00:03.000Z', 8: '2026-11-25T10:00:02.000Z' }]);
    expect(usage.pending).toBe(0);
  });

  it('does not call the flush function when nothing was noted', async () => {
    const { usage, state } = recorder();
    await usage.flush();
    expect(state.calls).toBe(0);
  });

  it('keeps a failed batch for the next flush and logs instead of throwing', async () => {
    const { usage, written, state, warnings, at } = recorder();
    at('2026-11-25T10:00:01Z');
    usage.note(7);
    usage.note(8);
    state.failing = true;
    await expect(usage.flush()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(usage.pending).toBe(2);
    state.failing = false;
    await usage.flush();
    expect(written).toEqual([{ 7: '2026-11-25T10:00:01.000Z', 8: '2026-11-25T10:00:01.000Z' }]);
    expect(usage.pending).toBe(0);
  });

  it('merges a failed batch with uses noted while it ran: the newest time of each key wins', async () => {
    const { usage, written, state, at } = recorder();
    at('2026-11-25T10:00:01Z');
    usage.note(7);
    usage.note(8);
    state.failing = true;
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const failed = usage.flush();
    // Key 7 is used again while the write is on its way, then the write fails.
    at('2026-11-25T10:00:05Z');
    usage.note(7);
    release();
    await failed;
    expect(usage.pending).toBe(2);
    state.failing = false;
    state.gate = undefined;
    await usage.flush();
    expect(written).toEqual([{ 7: '2026-11-25T10:00:05.000Z', 8: '2026-11-25T10:00:01.000Z' }]);
  });

  it('runs one flush at a time: a flush asked for during another writes what the first did not take', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batches: number[][] = [];
    let inFlight = 0;
    let most = 0;
    const usage = new KeyUsage(async (keyIds) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (batches.length === 0) await gate;
      batches.push(keyIds);
      inFlight -= 1;
    }, { warn: () => undefined });
    usage.note(1);
    const tick = usage.flush();
    usage.note(2);
    const shutdown = usage.flush();
    release();
    await Promise.all([tick, shutdown]);
    expect(batches).toEqual([[1], [2]]);
    expect(most).toBe(1);
  });
});
