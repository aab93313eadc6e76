/**
 * A rolling pool of senders: up to `size` sends in flight, refilled as
 * they finish rather than a batch at a time, so one slow receiver holds
 * one slot, not the whole batch. Work is claimed in bulk whenever a
 * quarter of the slots are free (one claim serves several sends), until a
 * claim comes back short: nothing more is due for now.
 *
 * The drain waits for free slots on one signal that every finishing send
 * gives, not on a race over the sends in flight: a race adds a reaction to
 * each of them every time it waits, which at 64 slots made about 63
 * promises per delivery (8 now; sender-pool.test.ts counts them).
 */
export class SenderPool<T> {
  constructor(
    private readonly size: number,
    private readonly claim: (limit: number) => Promise<T[]>,
    private readonly send: (item: T) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Claims and sends until nothing is due; resolves when every send it started has settled. */
  async drain(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const refillAt = Math.max(1, Math.floor(this.size / 4));
    let wake: (() => void) | undefined;
    const slotFreed = () => new Promise<void>((resolve) => (wake = resolve));
    try {
      for (let due = true; due; ) {
        const free = this.size - inFlight.size;
        if (free < refillAt) {
          await slotFreed();
          continue;
        }
        const claimed = await this.claim(free);
        due = claimed.length === free;
        for (const item of claimed) {
          const sending: Promise<void> = this.send(item)
            .catch(this.onError)
            .finally(() => {
              inFlight.delete(sending);
              wake?.();
            });
          inFlight.add(sending);
        }
      }
    } finally {
      await Promise.all(inFlight);
    }
  }
}
