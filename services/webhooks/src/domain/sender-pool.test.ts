import { createHook } from 'node:async_hooks';
import { SenderPool } from './sender-pool';

/** A claim that hands out `total` numbered items, recording each limit asked for. */
function source(total: number) {
  let next = 0;
  const limits: number[] = [];
  const claim = async (limit: number) => {
    limits.push(limit);
    const items = Array.from({ length: Math.min(limit, total - next) }, (_, index) => next + index);
    next += items.length;
    return items;
  };
  return { claim, limits };
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describe('SenderPool', () => {
  it('sends everything due, never more than its size at once, and claims in bulk', async () => {
    const { claim, limits } = source(100);
    let inFlight = 0;
    let most = 0;
    const sent: number[] = [];
    const pool = new SenderPool(8, claim, async (item) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, item % 3));
      sent.push(item);
      inFlight -= 1;
    }, () => undefined);
    await pool.drain();
    expect(sent.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index));
    expect(most).toBeLessThanOrEqual(8);
    expect(limits.every((limit) => limit >= 2 && limit <= 8)).toBe(true);
    expect(limits.length).toBeLessThan(100 / 2);
  });

  it('refills free slots while a slow send is still on the wire', async () => {
    const { claim } = source(20);
    const slow = gate();
    const sent: number[] = [];
    const pool = new SenderPool(4, claim, async (item) => {
      if (item === 0) await slow.opened;
      sent.push(item);
    }, () => undefined);
    const draining = pool.drain();
    // Everything but the slow one goes out while item 0 holds its slot.
    while (sent.length < 19) await new Promise((resolve) => setImmediate(resolve));
    expect(sent).not.toContain(0);
    slow.open();
    await draining;
    expect(sent).toHaveLength(20);
  });

  it('reports a failed send and goes on; a failed claim ends the drain after the sends in flight settle', async () => {
    const errors: unknown[] = [];
    const { claim } = source(6);
    const sent: number[] = [];
    await new SenderPool(4, claim, async (item) => {
      if (item === 2) throw new Error('boom');
      sent.push(item);
    }, (error) => errors.push(error)).drain();
    expect(sent).toHaveLength(5);
    expect(errors).toHaveLength(1);

    let claims = 0;
    let settled = false;
    const failing = new SenderPool(
      2,
      async () => {
        claims += 1;
        if (claims > 1) throw new Error('database gone');
        return [1, 2];
      },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        settled = true;
      },
      () => undefined,
    );
    await expect(failing.drain()).rejects.toThrow('database gone');
    expect(settled).toBe(true);
  });

  it('waits for a free slot without work per send in flight: a few promises per send, not one per slot', async () => {
    const { claim } = source(2_000);
    let promises = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && (promises += 1)) });
    const pool = new SenderPool(64, claim, () => new Promise<void>((resolve) => setImmediate(resolve)), () => undefined);
    hook.enable();
    try {
      await pool.drain();
    } finally {
      hook.disable();
    }
    // Waiting on a race over the 64 sends in flight made about 63 promises per send.
    expect(promises / 2_000).toBeLessThan(12);
  });

  it('claims again while a claim is on its way, never for slots that are taken or already asked for', async () => {
    const total = 400;
    let next = 0;
    let inFlight = 0;
    let asked = 0;
    let claimsAtOnce = 0;
    let most = 0;
    const overAsked: string[] = [];
    const pool = new SenderPool(
      16,
      async (limit) => {
        if (inFlight + asked + limit > 16) overAsked.push(`${inFlight} sending + ${asked} asked + ${limit}`);
        asked += limit;
        claimsAtOnce += 1;
        most = Math.max(most, claimsAtOnce);
        // A claim takes longer than a send, as a round trip to PostgreSQL does against a fast receiver.
        await new Promise((resolve) => setTimeout(resolve, 4));
        asked -= limit;
        claimsAtOnce -= 1;
        const items = Array.from({ length: Math.min(limit, total - next) }, (_, index) => next + index);
        next += items.length;
        inFlight += items.length;
        return items;
      },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight -= 1;
      },
      () => undefined,
    );
    await pool.drain();
    expect({ sent: next, overAsked, most }).toEqual({ sent: total, overAsked: [], most: 2 });
  });

  it('claims work woken during a drain in that drain, and says when no drain is running', async () => {
    const items: number[] = [1, 2];
    const slow = gate();
    const sent: number[] = [];
    const pool = new SenderPool(
      4,
      async (limit) => items.splice(0, limit),
      async (item) => {
        if (item === 1) await slow.opened;
        sent.push(item);
      },
      () => undefined,
    );
    expect(pool.wake()).toBe(false);
    let drained = false;
    const draining = pool.drain().then(() => (drained = true));
    // The first claim came back short; item 1 still holds the drain open.
    while (!sent.includes(2)) await new Promise((resolve) => setImmediate(resolve));
    items.push(3, 4);
    expect(pool.wake()).toBe(true);
    while (!sent.includes(4)) await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    slow.open();
    await draining;
    expect(sent.sort()).toEqual([1, 2, 3, 4]);
    expect(pool.wake()).toBe(false);
  });

  describe('handed sends (sendNow)', () => {
    it('share the slots with the drain, go ahead of its claims, and never exceed the size together', async () => {
      const { claim, limits } = source(20);
      let inFlight = 0;
      let most = 0;
      const busy = async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight -= 1;
      };
      const pool = new SenderPool(4, claim, busy, () => undefined);
      const handed = Array.from({ length: 6 }, (_, index) => pool.sendNow(async () => (await busy(), index)));
      // Four took the slots; two wait, and the drain may claim nothing while they do.
      expect(handed.map((send) => send.started)).toEqual([true, true, true, true, false, false]);
      const drained = pool.drain();
      expect(limits).toEqual([]);
      expect(await Promise.all(handed.map((send) => send.result))).toEqual([0, 1, 2, 3, 4, 5]);
      await drained;
      expect(most).toBeLessThanOrEqual(4);
      expect(limits.reduce((sum, limit) => sum + limit, 0)).toBeGreaterThanOrEqual(20);
    });

    it('can be withdrawn while waiting for a slot, never once started', async () => {
      const held = gate();
      const pool = new SenderPool(1, async () => [], async () => undefined, () => undefined);
      const first = pool.sendNow(() => held.opened.then(() => 'first'));
      let ran = false;
      const second = pool.sendNow(async () => {
        ran = true;
        return 'second';
      });
      const third = pool.sendNow(async () => 'third');

      expect(first.withdraw()).toBe(false);
      expect(second.withdraw()).toBe(true);
      held.open();
      expect(await first.result).toBe('first');
      // The slot went to the third, skipping the withdrawn one, which never runs.
      expect(await third.result).toBe('third');
      expect(ran).toBe(false);
      expect(second.started).toBe(false);
    });
  });
});
