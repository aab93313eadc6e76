/**
 * When a failed attempt is tried again, and after how long. The backoff
 * schedule is node-retry's (exponential, with jitter); the server's own
 * word (`Retry-After`, or `RateLimit-Reset` when the window is spent)
 * overrides it, since waiting less only earns another 429.
 */
import retry from 'retry';

export interface RetryOptions {
  /** Attempts after the first; 0 turns retries off. Default 3. */
  maxRetries?: number;
  /** Backoff of the first retry in ms, doubled for each later one (with jitter). Default 500. */
  minDelayMs?: number;
  /** The longest wait the client accepts, backoff or server-asked; a longer `Retry-After` is returned to the caller. Default 60 000. */
  maxDelayMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  const resolved = { maxRetries: 3, minDelayMs: 500, maxDelayMs: 60_000, ...options };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer, got ${String(value)}`);
  }
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
  const value = headers.get(name);
  if (value === null || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Math.ceil(Number(value) * 1000);
}

/** What the server asked for: `Retry-After`, else `RateLimit-Reset` when `RateLimit-Remaining` is 0. */
export function serverRequestedDelayMs(headers: Headers): number | undefined {
  const retryAfter = secondsHeader(headers, 'retry-after');
  if (retryAfter !== undefined) return retryAfter;
  if (headers.get('ratelimit-remaining')?.trim() === '0') return secondsHeader(headers, 'ratelimit-reset');
  return undefined;
}

/** The wait before retry number `retryNumber` (0 for the first retry). */
export function backoffDelayMs(retryNumber: number, options: ResolvedRetryOptions): number {
  return retry.createTimeout(retryNumber, { factor: 2, minTimeout: options.minDelayMs, maxTimeout: options.maxDelayMs, randomize: true });
}
