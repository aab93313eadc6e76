/**
 * The wait before a retry that the server asked for, against an HTTP server
 * of the test's own on loopback that turns each caller away with `429
 * rate_limited` and `Retry-After` before answering `201`: the retry never
 * comes before the wait, and a crowd told the same wait comes back spread
 * over [wait, wait × (1 + retryAfterJitter)]. Most cases replace the sleep
 * (and some the random source) to be exact and fast; one runs on the real
 * timer, where machine load blurs the spread, so it checks the bounds only.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { resolveRetryOptions, type RetryOptions } from './retry-policy';
import { retryingFetch, type RetryTiming } from './retrying-fetch';

// Fifty callers over loopback: on a loaded machine their round trips alone can take seconds.
jest.setTimeout(30_000);

let server: Server;
let baseUrl: string;
/** Arrival times (ms, monotonic) and idempotency keys of each caller's requests, by caller. */
let arrivals: Map<string, { at: number; idempotencyKey: string | undefined }[]>;

/**
 * `/<caller>?retry_after=<header>&refusals=<n>`: the caller's first `n` requests (default 1) get
 * `429 rate_limited` with that `Retry-After` (or `503` with `status=503`), the next `201`.
 */
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    const seen = arrivals.get(url.pathname) ?? [];
    seen.push({ at: performance.now(), idempotencyKey: req.headers['idempotency-key'] as string | undefined });
    arrivals.set(url.pathname, seen);
    req.resume();
    if (seen.length <= Number(url.searchParams.get('refusals') ?? 1)) {
      const status = Number(url.searchParams.get('status') ?? 429);
      const code = status === 429 ? 'rate_limited' : 'internal_error';
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': url.searchParams.get('retry_after')! });
      res.end(JSON.stringify({ error: { type: status === 429 ? 'rate_limit_error' : 'api_error', code, message: code, param: null, request_id: 'req_1' } }));
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"object":"checkout_session"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  arrivals = new Map();
});

/** Timing whose sleep only records the wait asked for, and whose random source is `random`. */
function recordedTiming(random: () => number, now = Date.now) {
  const sleeps: number[] = [];
  const timing: RetryTiming = { now, random, sleep: async (ms) => void sleeps.push(ms) };
  return { timing, sleeps };
}

function checkout(caller: string, query: Record<string, string>, init: RequestInit = {}) {
  return new Request(`${baseUrl}/${caller}?${new URLSearchParams(query)}`, { method: 'POST', body: '{"event_id":1}', ...init });
}

const options = (retries: RetryOptions = {}) => resolveRetryOptions({ maxRetries: 2, ...retries });

describe('the wait after a 429 with Retry-After', () => {
  it('when fifty callers meet 429 with Retry-After: 1, then each waits in [1 s, 2 s] and the waits are spread, not in step', async () => {
    const { timing, sleeps } = recordedTiming(Math.random);
    const send = retryingFetch(options(), undefined, timing);
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => send(checkout(`c${i}`, { retry_after: '1' })).then((response) => response.status)));
    expect(statuses).toEqual(Array(50).fill(201));
    expect(sleeps).toHaveLength(50);
    expect(Math.min(...sleeps)).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(2000);
    // Fifty uniform draws over a second spanning less than half of it: about 1 chance in 10^13.
    expect(Math.max(...sleeps) - Math.min(...sleeps)).toBeGreaterThanOrEqual(500);
    expect(new Set(sleeps).size).toBeGreaterThan(25);
  });

  it('when the random source gives 0, 0.5 and nearly 1, then the wait is the floor, halfway and nearly the top of [wait, wait × (1 + jitter)]', async () => {
    const cases: [RetryOptions, number, number][] = [
      [{}, 0, 3000],
      [{}, 0.5, 4500],
      [{}, 0.9999, 6000],
      [{ retryAfterJitter: 0.25 }, 0.5, 3375],
      [{ retryAfterJitter: 0 }, 0.9, 3000],
      // The window shrinks to end at maxDelayMs, so callers near the cap stay spread.
      [{ maxDelayMs: 4000 }, 0.5, 3500],
    ];
    for (const [retries, draw, expected] of cases) {
      const { timing, sleeps } = recordedTiming(() => draw);
      const response = await retryingFetch(options(retries), undefined, timing)(checkout(`d${draw}-${JSON.stringify(retries)}`, { retry_after: '3' }));
      expect({ retries, draw, status: response.status, sleeps }).toEqual({ retries, draw, status: 201, sleeps: [expected] });
    }
  });

  it('when Retry-After is an HTTP-date, then the wait runs to that date (jittered); a date already past retries at once', async () => {
    const now = Date.UTC(2026, 10, 28, 3, 0, 0);
    const { timing, sleeps } = recordedTiming(() => 0.5, () => now);
    const send = retryingFetch(options(), undefined, timing);
    expect((await send(checkout('date-ahead', { retry_after: new Date(now + 4000).toUTCString() }))).status).toBe(201);
    expect((await send(checkout('date-past', { retry_after: new Date(now - 60_000).toUTCString() }))).status).toBe(201);
    expect(sleeps).toEqual([6000, 0]);
  });

  it('when a 503 carries Retry-After, then it is waited for with the same jitter', async () => {
    const { timing, sleeps } = recordedTiming(() => 0.5);
    const response = await retryingFetch(options(), undefined, timing)(checkout('busy', { retry_after: '2', status: '503' }));
    expect(response.status).toBe(201);
    expect(sleeps).toEqual([3000]);
  });

  it('when every attempt is refused, then after maxRetries retries the last 429 is returned; maxRetries 0 sends once', async () => {
    const { timing, sleeps } = recordedTiming(() => 0);
    const response = await retryingFetch(options({ maxRetries: 2 }), undefined, timing)(checkout('always', { retry_after: '1', refusals: '10' }));
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(arrivals.get('/always')).toHaveLength(3);
    expect(sleeps).toEqual([1000, 1000]);

    const once = await retryingFetch(options({ maxRetries: 0 }), undefined, timing)(checkout('no-retries', { retry_after: '1' }));
    expect(once.status).toBe(429);
    expect(arrivals.get('/no-retries')).toHaveLength(1);
  });

  it('when a POST without a key is refused, then the client gave it a key and the retry sends the same one', async () => {
    const { timing } = recordedTiming(() => 0);
    await retryingFetch(options(), undefined, timing)(checkout('keyed', { retry_after: '1' }));
    const [first, retry] = arrivals.get('/keyed')!;
    expect(first!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry!.idempotencyKey).toBe(first!.idempotencyKey);
  });

  it('when the caller aborts during the wait, then the wait ends at once with the signal reason and nothing more is sent', async () => {
    const caller = new AbortController();
    let abortedAt = 0;
    // The caller gives up 50 ms after the 429 reached the client, inside its 30 s wait.
    const abortAfterAnswer = async (request: Request) => {
      const response = await fetch(request);
      setTimeout(() => {
        abortedAt = performance.now();
        caller.abort(new DOMException('the caller gave up', 'TimeoutError'));
      }, 50);
      return response;
    };
    const sending = retryingFetch(options(), abortAfterAnswer)(checkout('aborted', { retry_after: '30' }, { signal: caller.signal }));
    await expect(sending).rejects.toMatchObject({ name: 'TimeoutError', message: 'the caller gave up' });
    expect(performance.now() - abortedAt).toBeLessThan(1000);
    expect(arrivals.get('/aborted')).toHaveLength(1);
  });
});

describe('on the real timer', () => {
  it('when twenty callers meet 429 with Retry-After: 0.2, then each sends its retry no sooner than 200 ms after the refusal reached it', async () => {
    // When each caller got its refusal and when it sent the retry, seen from the caller's side.
    const attempts = new Map<string, { sent: number; answered?: number }[]>();
    const timedFetch = async (request: Request) => {
      const attempt: { sent: number; answered?: number } = { sent: performance.now() };
      attempts.set(request.url, [...(attempts.get(request.url) ?? []), attempt]);
      const response = await fetch(request);
      attempt.answered = performance.now();
      return response;
    };
    const send = retryingFetch(options(), timedFetch);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => send(checkout(`t${i}`, { retry_after: '0.2' })).then((response) => response.status)));
    expect(statuses).toEqual(Array(20).fill(201));
    const waits = [...attempts.values()].map(([refused, retry]) => retry!.sent - refused!.answered!);
    expect(waits).toHaveLength(20);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(199);
    // At most 400 ms asked for; the generous margin is event-loop lag on a busy machine.
    expect(Math.max(...waits)).toBeLessThan(400 + 1500);
  });
});
