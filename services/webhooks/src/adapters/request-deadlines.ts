/**
 * The receiver client's one deadline per request (connecting, headers and
 * body together), as abort signals shared by every request that begins in
 * the same short window: the window's signal fires `timeoutMs` after the
 * window closes, so each request gets its whole deadline and at most one
 * window more. One timer per window instead of one per request:
 * `AbortSignal.timeout` for each POST was 2–4 % of the webhooks process in
 * a burst (a timer, a signal and its finalizer apiece).
 */
import { setMaxListeners } from 'node:events';

const DEADLINE_WINDOW_MS = 10;

export class RequestDeadlines {
  private signal: AbortSignal | undefined;
  private windowClosesAt = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly windowMs = DEADLINE_WINDOW_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The signal for a request beginning now: aborted (with a TimeoutError) no sooner than `timeoutMs` from now. */
  next(): AbortSignal {
    const now = this.now();
    if (this.signal === undefined || now >= this.windowClosesAt) {
      this.windowClosesAt = now + this.windowMs;
      this.signal = AbortSignal.timeout(this.timeoutMs + this.windowMs);
      // Every request of the window listens to it: as many as a window holds, not a leak.
      setMaxListeners(0, this.signal);
    }
    return this.signal;
  }
}
