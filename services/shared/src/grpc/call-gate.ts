/**
 * The bound on a service's gRPC server (D443): how many calls its handlers
 * run at once. A call over the bound waits in arrival order for a slot, at
 * most `maxQueueMs` and never past its own deadline; one that cannot start
 * in time is turned away at once as `rate_limited` (RESOURCE_EXHAUSTED on
 * the wire; the gateway answers the partner 429 with Retry-After). A call
 * whose deadline has already passed is not started at all: its caller has
 * stopped waiting, so a hold or a session made for it would be made for
 * nobody.
 */
import { ApiError } from '../errors';

export type ShedReason = 'busy' | 'deadline';

export interface CallGateOptions {
  maxInFlight: number;
  maxQueueMs: number;
}

/** A call refused by the gate: `reason` says why (for the shed metric). */
export class CallShed extends ApiError {
  constructor(readonly reason: ShedReason) {
    super(
      reason === 'busy' ? 'rate_limited' : 'internal_error',
      reason === 'busy' ? 'The service is busy; retry shortly.' : 'The call arrived after its deadline.',
    );
  }
}

interface Waiting {
  readonly until: number;
  start(): void;
  refuse(reason: ShedReason): void;
}

export class CallGate {
  private inFlight = 0;
  private readonly waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: CallGateOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  get running(): number {
    return this.inFlight;
  }

  /**
   * Runs `work` once a slot is free, and frees the slot when it settles.
   * `deadline` is the call's (ms since the epoch; Infinity for none).
   */
  run<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    const now = this.clock();
    if (deadline <= now) return Promise.reject(new CallShed('deadline'));
    if (this.inFlight < this.options.maxInFlight && this.waiting.length === 0) return this.start(work);
    if (this.options.maxQueueMs <= 0) return Promise.reject(new CallShed('busy'));
    return new Promise<T>((resolve, reject) => {
      const queueEnd = now + this.options.maxQueueMs;
      this.waiting.push({
        until: Math.min(deadline, queueEnd),
        start: () => this.start(work).then(resolve, reject),
        // Past its deadline it is the caller who left; past the queue's wait, the service is busy.
        refuse: (reason) => reject(new CallShed(reason)),
      });
      if (this.waiting.length === 1) this.armTimer();
    }).catch((error: unknown) => {
      throw error instanceof CallShed && error.reason === 'busy' && this.clock() >= deadline ? new CallShed('deadline') : error;
    });
  }

  private start<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    let settled: Promise<T>;
    try {
      settled = work();
    } catch (error) {
      settled = Promise.reject(error);
    }
    return settled.finally(() => {
      this.inFlight -= 1;
      this.startWaiting();
    });
  }

  private startWaiting(): void {
    const now = this.clock();
    while (this.waiting.length > 0) {
      const head = this.waiting[0]!;
      if (head.until <= now) {
        this.waiting.shift();
        head.refuse('busy');
        continue;
      }
      if (this.inFlight >= this.options.maxInFlight) break;
      this.waiting.shift();
      head.start();
    }
    this.armTimer();
  }

  /**
   * One timer, for the head's end of wait. A later waiter with an earlier
   * deadline is refused when it reaches the head, still within `maxQueueMs`
   * of its arrival (the head arrived before it).
   */
  private armTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const head = this.waiting[0];
    if (!head) return;
    this.timer = setTimeout(() => this.startWaiting(), Math.max(0, head.until - this.clock()));
    this.timer.unref();
  }
}
