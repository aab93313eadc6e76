/**
 * When a failed attempt is tried again, and after how long. The backoff
 * schedule is node-retry's (exponential, with jitter); the server's own
 * word (`Retry-After`, or `RateLimit-Reset` when the window is spent)
 * overrides it, since waiting less only earns another 429, and is spread
 * with jitter past that floor, so a crowd told the same wait does not come
 * back in step.
 */
import retry from 'retry';

export interface RetryOptions {
  /** Attempts after the first; 0 turns retries off. Default 3. */
  maxRetries?: number;
  /** Backoff of the first retry in ms, doubled for each later one (with jitter). Default 500. */
  minDelayMs?: number;
  /** The longest wait the client accepts, backoff or server-asked; a longer `Retry-After` is returned to the caller. Default 60 000. */
  maxDelayMs?: number;
  /**
   * How far past the server's wait a retry may come, as a fraction of that wait: the retry
   * comes at a uniformly random point of [wait, wait × (1 + retryAfterJitter)]. 0 retries
   * exactly at the wait. Default 1 (up to twice the wait).
   */
  retryAfterJitter?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

const INTEGER_OPTIONS = ['maxRetries', 'minDelayMs', 'maxDelayMs'] as const;

export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  const resolved = { maxRetries: 3, minDelayMs: 500, maxDelayMs: 60_000, retryAfterJitter: 1, ...options };
  for (const name of INTEGER_OPTIONS) {
    const value = resolved[name];
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  const jitter = resolved.retryAfterJitter;
  if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0) throw new TypeError(`retryAfterJitter must be a non-negative number, got ${String(jitter)}`);
  return resolved;
}

/** 409 with this code means the first request with the same key is still running: wait and ask again. */
export const IN_PROGRESS_CODE = 'idempotency_request_in_progress';

/** Whether an answer may be retried: 429, any 5xx, and 409 for a request still in progress. Never another 4xx. */
export function isRetryableStatus(status: number, errorCode: string | undefined): boolean {
  return status === 429 || status >= 500 || (status === 409 && errorCode === IN_PROGRESS_CODE);
}

/** Seconds in a header as milliseconds, or undefined when absent or not a number of seconds. */
function secondsHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name)?.trim();
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) return undefined;
  return Math.ceil(Number(value) * 1000);
}

/** `Retry-After` as milliseconds from `now`: delta-seconds, or an HTTP-date (one in the past is 0). */
function retryAfterMs(headers: Headers, now: number): number | undefined {
  const seconds = secondsHeader(headers, 'retry-after');
  if (seconds !== undefined) return seconds;
  const value = headers.get('retry-after');
  // HTTP-dates name the weekday and GMT ("Wed, 21 Oct 2026 07:28:00 GMT"); anything else is ignored.
  if (value === null || !/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** What the server asked for: `Retry-After`, else `RateLimit-Reset` when `RateLimit-Remaining` is 0. */
export function serverRequestedDelayMs(headers: Headers, now: number = Date.now()): number | undefined {
  const retryAfter = retryAfterMs(headers, now);
  if (retryAfter !== undefined) return retryAfter;
  if (headers.get('ratelimit-remaining')?.trim() === '0') return secondsHeader(headers, 'ratelimit-reset');
  return undefined;
}

/**
 * The server's wait with jitter: a uniform point of [wait, wait × (1 + jitter)], never past
 * `maxDelayMs` (the window shrinks to fit, so clients near the cap stay spread out).
 * `random` returns a number in [0, 1), like `Math.random`.
 */
export function jitteredServerDelayMs(requestedMs: number, options: ResolvedRetryOptions, random: () => number): number {
  const latest = Math.max(requestedMs, Math.min(requestedMs * (1 + options.retryAfterJitter), options.maxDelayMs));
  return Math.ceil(requestedMs + (latest - requestedMs) * random());
}

/** The wait before retry number `retryNumber` (0 for the first retry). */
export function backoffDelayMs(retryNumber: number, options: ResolvedRetryOptions): number {
  return retry.createTimeout(retryNumber, { factor: 2, minTimeout: options.minDelayMs, maxTimeout: options.maxDelayMs, randomize: true });
}
