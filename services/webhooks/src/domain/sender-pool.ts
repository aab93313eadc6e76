/**
 * A rolling pool of senders: up to `size` sends in flight, refilled as
 * they finish rather than a batch at a time, so one slow receiver holds
 * one slot, not the whole batch. Work is claimed in bulk whenever a
 * quarter of the slots are free (one claim serves several sends), until a
 * claim comes back short: nothing more is due for now.
 *
 * A claim is a round trip to PostgreSQL that takes longer than a POST to a
 * fast receiver, so a second claim may start while the first is on its
 * way: each asks only for the slots free and not already asked for, so
 * nothing claimed ever waits for a slot (a claimed attempt carries its
 * endpoint as the claim read it, and is sent at once). Work that becomes
 * due while a drain runs is claimed by that drain (`wake`) instead of
 * waiting for its last sends to finish and a new drain to start.
 *
 * The drain waits for changes on one signal that each finishing send or
 * claim gives, not on a race over the sends in flight: a race adds a
 * reaction to each of them every time it waits, which at 64 slots made
 * about 63 promises per delivery (sender-pool.test.ts counts them).
 */
export class SenderPool<T> {
  /** Wake-ups so far: a claim that comes back short ends the drain only if none came while it was on its way. */
  private wakeUps = 0;
  /** The drain in progress's own reaction to a wake-up; unset between drains. */
  private woken: (() => void) | undefined;
  private changed: (() => void) | undefined;

  constructor(
    private readonly size: number,
    private readonly claim: (limit: number) => Promise<T[]>,
    private readonly send: (item: T) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    /** Claims on their way at once. */
    private readonly claimsAtOnce = 2,
  ) {}

  /** Tells a drain in progress that more work is due; false when no drain is running (start one). */
  wake(): boolean {
    if (!this.woken) return false;
    this.wakeUps += 1;
    this.woken();
    return true;
  }

  /**
   * Claims and sends until nothing is due; resolves when every send it
   * started has settled. A claim that fails stops further claims and, once
   * the rest has settled, rejects the drain.
   */
  async drain(): Promise<void> {
    let sending = 0;
    const refillAt = Math.max(1, Math.floor(this.size / 4));
    /** Slots asked for by claims on their way. */
    let asked = 0;
    let claims = 0;
    let due = true;
    let failure: { error: unknown } | undefined;
    const notify = () => this.changed?.();

    const startSend = (item: T) => {
      sending += 1;
      void this.send(item)
        .catch(this.onError)
        .finally(() => {
          sending -= 1;
          notify();
        });
    };
    const startClaim = (limit: number) => {
      const wakeUpsBefore = this.wakeUps;
      asked += limit;
      claims += 1;
      this.claim(limit).then(
        (items) => {
          asked -= limit;
          claims -= 1;
          if (items.length < limit && this.wakeUps === wakeUpsBefore) due = false;
          for (const item of items) startSend(item);
          notify();
        },
        (error: unknown) => {
          asked -= limit;
          claims -= 1;
          failure ??= { error };
          notify();
        },
      );
    };

    this.woken = () => {
      due = true;
      notify();
    };
    try {
      for (;;) {
        const free = this.size - sending - asked;
        if (!failure && due && claims < this.claimsAtOnce && free >= refillAt) {
          startClaim(free);
          continue;
        }
        if (claims === 0 && sending === 0 && (failure || !due)) break;
        await new Promise<void>((resolve) => (this.changed = resolve));
      }
    } finally {
      this.woken = undefined;
      this.changed = undefined;
    }
    if (failure) throw failure.error;
  }
}
