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
 *
 * Work already in hand, which needs no claim (the attempts a consumer has
 * just routed, D373), takes the same slots through `sendNow`: it waits for
 * a slot ahead of any claim, and may be withdrawn while it waits.
 */

/** A send given to `sendNow`. */
export interface HandedSend<R> {
  /** Settles when the send is over; never settles for a send withdrawn before it started. */
  readonly result: Promise<R>;
  /** Whether it has a slot and has begun. */
  readonly started: boolean;
  /** Takes the send back if it has not started (true), so it never will. */
  withdraw(): boolean;
}
export class SenderPool<T> {
  /** Wake-ups so far: a claim that comes back short ends the drain only if none came while it was on its way. */
  private wakeUps = 0;
  /** The drain in progress's own reaction to a wake-up; unset between drains. */
  private woken: (() => void) | undefined;
  private changed: (() => void) | undefined;
  /** Slots in use: the drain's sends and handed sends. */
  private inUse = 0;
  /** Handed sends waiting for a slot, first come first served. */
  private readonly queued: Array<() => void> = [];

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

  /** Runs `send` in a slot as soon as one is free, ahead of any claim. */
  sendNow<R>(send: () => Promise<R>): HandedSend<R> {
    let started = false;
    let withdrawn = false;
    let begin!: () => void;
    const result = new Promise<R>((resolve, reject) => {
      begin = () => {
        started = true;
        send()
          .then(resolve, reject)
          .finally(() => this.release());
      };
    });
    const start = () => {
      if (!withdrawn) begin();
    };
    if (this.inUse < this.size) {
      this.inUse += 1;
      start();
    } else {
      this.queued.push(start);
    }
    return {
      result,
      get started() {
        return started;
      },
      withdraw: () => {
        if (started || withdrawn) return !started;
        withdrawn = true;
        this.queued.splice(this.queued.indexOf(start), 1);
        return true;
      },
    };
  }

  /**
   * A slot is free: the next handed send takes it as it is (the count stays),
   * or it is counted free for the drain to claim. So handed sends wait only
   * while every slot is in use.
   */
  private release(): void {
    const next = this.queued.shift();
    if (next) {
      next();
      return;
    }
    this.inUse -= 1;
    this.changed?.();
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
      this.inUse += 1;
      void this.send(item)
        .catch(this.onError)
        .finally(() => {
          sending -= 1;
          this.release();
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
        // A freed slot passes straight to a handed send waiting for one (release): while any waits, none is free to claim for.
        const free = this.size - this.inUse - asked;
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
