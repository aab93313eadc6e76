/**
 * How many requests one gateway process works on at once, found from the
 * latency it measures: additive increase, multiplicative decrease on a
 * latency ceiling, as Netflix concurrency-limits' AIMDLimit does with its
 * latency threshold; written here because no maintained JavaScript package
 * implements an adaptive concurrency limit (D440).
 *
 * Completed requests are gathered into short windows. While a window's mean
 * latency stays under the ceiling the limit grows by a little (a fifth of
 * its square root: about 3 a window at 200); a window over it takes a tenth
 * off. A limit that is not reached (fewer than half of it in flight) does
 * not grow past where it started, and slow requests far from it are slow
 * for their own reasons; a limit an earlier burst shrank returns towards its
 * start while the windows are fast (D448). Under a steady overload it
 * settles where the mean latency of admitted requests meets the ceiling.
 *
 * The ceiling is `latencyCeilingMs`, or `ceilingFactor` times the no-load
 * latency when that is higher: the mean of windows with no more requests
 * in flight than the minimum limit. Requests that
 * are slow however few run at once (a slow database, a backend restarting
 * cold) then raise the ceiling instead of holding the limit at its minimum,
 * where it would only cut throughput: fewer requests in flight would not
 * make them faster (D446). Windows at the limit never move it, so an
 * overload cannot drift it up.
 *
 * A gradient limiter (Gradient2: short against long RTT) was tried first and
 * not kept: it read the climb from a light load's latency to a busy one's,
 * with latency still far under the ceiling, as queueing, and shed
 * closed-loop buyers the stack was serving at full speed.
 */
export interface ConcurrencyLimitOptions {
  initial: number;
  min: number;
  max: number;
  /** A window's mean latency above this always shrinks the limit (unless the no-load latency raises the ceiling). */
  latencyCeilingMs: number;
  /** The ceiling is at least this many times the no-load latency (default 3). */
  ceilingFactor?: number;
  /** What a window over the ceiling leaves of the limit (default 0.9). */
  backoff?: number;
  /** A window closes after this long and at least `windowSamples` samples. */
  windowMs?: number;
  windowSamples?: number;
}

export class ConcurrencyLimit {
  private estimated: number;
  private windowStart: number;
  private windowSum = 0;
  private windowCount = 0;
  private windowMaxInFlight = 0;
  /** Mean latency of windows with few requests in flight: what a request costs without queueing. */
  private noLoadRtt: number | undefined;
  private readonly ceilingFactor: number;
  private readonly backoff: number;
  private readonly windowMs: number;
  private readonly windowSamples: number;

  constructor(
    private readonly options: ConcurrencyLimitOptions,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.estimated = options.initial;
    this.ceilingFactor = options.ceilingFactor ?? 3;
    this.backoff = options.backoff ?? 0.9;
    this.windowMs = options.windowMs ?? 100;
    this.windowSamples = options.windowSamples ?? 10;
    this.windowStart = clock();
  }

  /** The current limit: whole requests, never below `min`. */
  get limit(): number {
    return Math.floor(this.estimated);
  }

  /** The latency above which a window always shrinks the limit. */
  get latencyCeiling(): number {
    return Math.max(this.options.latencyCeilingMs, this.ceilingFactor * (this.noLoadRtt ?? 0));
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

  private update(meanRtt: number, inFlight: number): void {
    // No more in flight than the minimum limit: what a request costs without queueing. (Half a large limit is
    // already a queue: counting it would let the ceiling follow the latency it is there to bound.)
    if (inFlight <= this.options.min) {
      this.noLoadRtt = this.noLoadRtt === undefined ? meanRtt : this.noLoadRtt + (meanRtt - this.noLoadRtt) * 0.2;
    }
    if (inFlight < this.estimated / 2) {
      // Far from the limit, slow requests are slow for their own reasons, not from load. A fast window with room to
      // spare is no sign of overload: a limit shrunk by an earlier burst goes a tenth of the way back to where it
      // started, so the next burst on a quiet gateway is not turned away by an overload long gone (D448).
      if (meanRtt <= this.latencyCeiling && this.estimated < this.options.initial) this.estimated += (this.options.initial - this.estimated) / 10;
      return;
    }
    const next = meanRtt > this.latencyCeiling ? this.estimated * this.backoff : this.estimated + Math.sqrt(this.estimated) / 5;
    this.estimated = Math.max(this.options.min, Math.min(this.options.max, next));
  }
}
