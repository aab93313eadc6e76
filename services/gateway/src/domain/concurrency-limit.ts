/**
 * How many requests one gateway process works on at once, found from the
 * latency it measures: the gradient algorithm of Netflix's
 * concurrency-limits (Gradient2), written here because no maintained
 * JavaScript package implements an adaptive concurrency limit (D440).
 *
 * Completed requests are gathered into short windows. Each window's mean
 * latency (short RTT) is compared with a slow exponential average of the
 * windows before it (long RTT). While the short RTT stays within
 * `tolerance` of the long one, the limit grows by a little each window;
 * when work queues up and latency rises, the gradient (long / short, at
 * least 0.5) shrinks it in proportion. A limit that is not reached (fewer
 * than half of it in flight) is not changed: quiet hours teach it nothing,
 * and slow requests far from the limit are slow for their own reasons.
 *
 * On its own the gradient drifts upwards under a steady overload: as the
 * limit grows, latency grows as slowly as the long average follows it. So a
 * window whose mean latency is over the ceiling always shrinks the limit by
 * a tenth (the multiplicative decrease of AIMD), which bounds the latency
 * any admitted request sees. The ceiling is `latencyCeilingMs`, or
 * `ceilingFactor` times the no-load latency when that is higher: the mean of
 * windows with few requests in flight (under half the limit, or no more than
 * the minimum). Requests that are slow however few run at once (a slow
 * database, a backend restarting cold) then raise the ceiling instead of
 * holding the limit at its minimum, where it would only cut throughput:
 * fewer requests in flight would not make them faster (D446).
 */
export interface ConcurrencyLimitOptions {
  initial: number;
  min: number;
  max: number;
  /** A window's mean latency above this always shrinks the limit (unless the no-load latency raises the ceiling). */
  latencyCeilingMs: number;
  /** The ceiling is at least this many times the no-load latency (default 3). */
  ceilingFactor?: number;
  /** How much the short RTT may exceed the long one before the limit shrinks (Gradient2's default: 1.5). */
  tolerance?: number;
  /** Weight of each window's new limit against the current one (0.2: a step moves a fifth of the way). */
  smoothing?: number;
  /** Windows in the long RTT's exponential average (600 windows of 100 ms: about a minute). */
  longWindows?: number;
  /** A window closes after this long and at least `windowSamples` samples. */
  windowMs?: number;
  windowSamples?: number;
}

export class ConcurrencyLimit {
  private estimated: number;
  private longRtt = 0;
  private longSamples = 0;
  private windowStart: number;
  private windowSum = 0;
  private windowCount = 0;
  private windowMaxInFlight = 0;
  /** Mean latency of windows with few requests in flight: what a request costs without queueing. */
  private noLoadRtt: number | undefined;
  private readonly tolerance: number;
  private readonly ceilingFactor: number;
  private readonly smoothing: number;
  private readonly longWindows: number;
  private readonly windowMs: number;
  private readonly windowSamples: number;

  constructor(
    private readonly options: ConcurrencyLimitOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.estimated = options.initial;
    this.tolerance = options.tolerance ?? 1.5;
    this.ceilingFactor = options.ceilingFactor ?? 3;
    this.smoothing = options.smoothing ?? 0.2;
    this.longWindows = options.longWindows ?? 600;
    this.windowMs = options.windowMs ?? 100;
    this.windowSamples = options.windowSamples ?? 10;
    this.windowStart = clock();
  }

  /** The current limit: whole requests, never below `min`. */
  get limit(): number {
    return Math.floor(this.estimated);
  }

  /** One completed request: how long it took (ms) and how many were in flight when it started. */
  sample(rttMs: number, inFlight: number): void {
    this.windowSum += rttMs;
    this.windowCount += 1;
    if (inFlight > this.windowMaxInFlight) this.windowMaxInFlight = inFlight;
    const now = this.clock();
    if (this.windowCount < this.windowSamples || now - this.windowStart < this.windowMs) return;
    this.update(this.windowSum / this.windowCount, this.windowMaxInFlight);
    this.windowStart = now;
    this.windowSum = 0;
    this.windowCount = 0;
    this.windowMaxInFlight = 0;
  }

  /** The latency above which a window always shrinks the limit. */
  get latencyCeiling(): number {
    return Math.max(this.options.latencyCeilingMs, this.ceilingFactor * (this.noLoadRtt ?? 0));
  }

  private update(shortRtt: number, inFlight: number): void {
    // The long RTT's average over its first windows weighs them equally, then exponentially.
    this.longSamples = Math.min(this.longSamples + 1, this.longWindows);
    this.longRtt += (shortRtt - this.longRtt) / this.longSamples;
    // After a long overload the long RTT remembers queueing that is gone: let it come down quickly.
    if (this.longRtt / shortRtt > 2) this.longRtt *= 0.95;
    // Few in flight: this is what a request costs without queueing (at the minimum limit too, where nothing queues behind it).
    if (inFlight < this.estimated / 2 || inFlight <= this.options.min) {
      this.noLoadRtt = this.noLoadRtt === undefined ? shortRtt : this.noLoadRtt + (shortRtt - this.noLoadRtt) * this.smoothing;
    }
    // Far from the limit, latency comes from the requests themselves (a slow endpoint), not from load: it moves nothing.
    if (inFlight < this.estimated / 2) return;
    if (shortRtt > this.latencyCeiling) {
      this.estimated = Math.max(this.options.min, this.estimated * 0.9);
      return;
    }
    const gradient = Math.max(0.5, Math.min(1, (this.tolerance * this.longRtt) / shortRtt));
    // Room for a few queued requests, so a limit at its best still probes upwards.
    const queueAllowance = Math.sqrt(this.estimated);
    const next = this.estimated * gradient + queueAllowance;
    const smoothed = this.estimated * (1 - this.smoothing) + next * this.smoothing;
    this.estimated = Math.max(this.options.min, Math.min(this.options.max, smoothed));
  }
}
