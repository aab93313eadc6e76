/**
 * The fetch every call goes through: a write (POST, PATCH, DELETE) gets an
 * `Idempotency-Key` unless the caller chose one, and every retry of it
 * sends the same key, so the API runs it at most once; retryable answers
 * and network failures are tried again on the retry policy. Every wait
 * ends as soon as the request's `AbortSignal` fires.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PartnerApiConnectionError } from './errors';
import { backoffDelayMs, isRetryableStatus, jitteredServerDelayMs, serverRequestedDelayMs, type ResolvedRetryOptions } from './retry-policy';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

export type FetchFunction = (request: Request) => Promise<Response>;

/** Where the waits come from: the clock, the random source of the jitter and the sleep. Tests replace them. */
export interface RetryTiming {
  now(): number;
  random(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it fires. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const realTiming: RetryTiming = {
  now: Date.now,
  random: Math.random,
  sleep: async (ms, signal) => {
    try {
      await sleep(ms, undefined, { signal });
    } catch (error) {
      // Like fetch itself, an aborted wait rejects with the signal's reason (a TimeoutError for AbortSignal.timeout).
      throw signal.aborted ? signal.reason : error;
    }
  },
};

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

export function retryingFetch(options: ResolvedRetryOptions, baseFetch: FetchFunction = (request) => fetch(request), timing: RetryTiming = realTiming): FetchFunction {
  return async (request) => {
    if (WRITE_METHODS.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', randomUUID());
    }
    for (let retryNumber = 0; ; retryNumber += 1) {
      const canRetry = retryNumber < options.maxRetries;
      let response: Response;
      try {
        // A request's body can be read once: each attempt sends a copy.
        response = await baseFetch(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (!canRetry) throw new PartnerApiConnectionError(`${request.method} ${request.url} failed after ${retryNumber + 1} attempts`, { cause: error });
        await timing.sleep(backoffDelayMs(retryNumber, options), request.signal);
        continue;
      }
      if (response.ok || !canRetry || !isRetryableStatus(response.status, await errorCodeOf(response))) return response;
      const requested = serverRequestedDelayMs(response.headers, timing.now());
      // A wait longer than the caller accepts is theirs to decide: they get the answer.
      if (requested !== undefined && requested > options.maxDelayMs) return response;
      const delay = requested === undefined ? backoffDelayMs(retryNumber, options) : jitteredServerDelayMs(requested, options, timing.random);
      await response.body?.cancel();
      await timing.sleep(delay, request.signal);
    }
  };
}
