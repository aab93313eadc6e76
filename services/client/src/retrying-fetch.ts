/**
 * The fetch every call goes through: a write (POST, PATCH, DELETE) gets an
 * `Idempotency-Key` unless the caller chose one, and every retry of it
 * sends the same key, so the API runs it at most once; retryable answers
 * and network failures are tried again on the retry policy.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PartnerApiConnectionError } from './errors';
import { backoffDelayMs, isRetryableStatus, serverRequestedDelayMs, type ResolvedRetryOptions } from './retry-policy';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'DELETE']);

export type FetchFunction = (request: Request) => Promise<Response>;

async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === 'string' ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

export function retryingFetch(options: ResolvedRetryOptions, baseFetch: FetchFunction = (request) => fetch(request)): FetchFunction {
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
        await sleep(backoffDelayMs(retryNumber, options));
        continue;
      }
      if (response.ok || !canRetry || !isRetryableStatus(response.status, await errorCodeOf(response))) return response;
      const delay = serverRequestedDelayMs(response.headers) ?? backoffDelayMs(retryNumber, options);
      // A wait longer than the caller accepts is theirs to decide: they get the answer.
      if (delay > options.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay, undefined, { signal: request.signal });
    }
  };
}
