import { ConcurrencyLimit } from './concurrency-limit';

const CEILING_MS = 100;

function limitWithClock(initial = 100) {
  const clock = { now: 0 };
  const limit = new ConcurrencyLimit({ initial, min: 10, max: 1_000, latencyCeilingMs: CEILING_MS }, () => clock.now);
  return { limit, clock };
}

/** Feeds `windows` windows of 10 samples each, `rttMs` long, with `inFlight` in flight. */
function feed({ limit, clock }: ReturnType<typeof limitWithClock>, windows: number, rttMs: number, inFlight: number): void {
  for (let window = 0; window < windows; window += 1) {
    for (let sample = 0; sample < 10; sample += 1) {
      clock.now += 10;
      limit.sample(rttMs, inFlight);
    }
  }
}

/**
 * A saturated server, every millisecond for `seconds`: it completes
 * `perMs` requests a millisecond, so each waits behind the others in
 * flight (latency = base + in flight / rate), and there are always more
 * waiting than the limit lets in.
 */
function saturate(subject: ReturnType<typeof limitWithClock>, seconds: number, perMs: number, baseMs: number): number[] {
  const latencies: number[] = [];
  for (let ms = 0; ms < seconds * 1_000; ms += 1) {
    subject.clock.now += 1;
    const inFlight = subject.limit.limit;
    const latency = baseMs + inFlight / perMs;
    latencies.push(latency);
    for (let done = 0; done < perMs; done += 1) subject.limit.sample(latency, inFlight);
  }
  return latencies;
}

test('grows while latency stays flat and the limit is reached', () => {
  const subject = limitWithClock();
  feed(subject, 50, 20, 100);
  expect(subject.limit.limit).toBeGreaterThan(120);
});

test('a burst that stays under the ceiling, from a light load to a busy one, never shrinks it', () => {
  const subject = limitWithClock();
  feed(subject, 100, 5, 100);
  const before = subject.limit.limit;
  feed(subject, 20, 90, before);
  expect(subject.limit.limit).toBeGreaterThan(before);
});

test('does not move while fewer than half of it are in flight, however slow those requests are', () => {
  const subject = limitWithClock();
  feed(subject, 100, 20, 30);
  expect(subject.limit.limit).toBe(100);
  feed(subject, 100, 5_000, 30);
  expect(subject.limit.limit).toBe(100);
});

test('a limit a burst shrank goes back to where it started once windows are fast with room to spare, and no further (D448)', () => {
  const subject = limitWithClock();
  feed(subject, 8, 500, 100);
  expect(subject.limit.limit).toBeLessThan(50);
  // Still slow, with under half of it in flight: nothing is learnt, nothing moves.
  const shrunk = subject.limit.limit;
  feed(subject, 20, 500, Math.floor(shrunk / 2) - 1);
  expect(subject.limit.limit).toBe(shrunk);
  feed(subject, 40, 20, 5);
  expect(subject.limit.limit).toBeGreaterThanOrEqual(95);
  feed(subject, 100, 20, 5);
  expect(subject.limit.limit).toBeLessThanOrEqual(100);
});

test('a window over the latency ceiling takes a tenth off, down to the minimum', () => {
  const subject = limitWithClock();
  feed(subject, 1, CEILING_MS + 1, 100);
  expect(subject.limit.limit).toBe(90);
  feed(subject, 100, 5_000, 100);
  expect(subject.limit.limit).toBe(10);
});

test('requests slow however few run at once raise the ceiling: the limit leaves its minimum (D446)', () => {
  const subject = limitWithClock();
  // A backend restarting cold: every request takes 400 ms, over the 100 ms ceiling, and the limit falls to its minimum.
  feed(subject, 30, 400, 100);
  expect(subject.limit.limit).toBe(10);
  expect(subject.limit.latencyCeiling).toBe(CEILING_MS);
  // At the minimum they still take 400 ms: that is what a request costs, not queueing, so the ceiling rises and the limit grows.
  for (let window = 0; window < 60; window += 1) feed(subject, 1, 400, subject.limit.limit);
  expect(subject.limit.latencyCeiling).toBeGreaterThan(1_000);
  expect(subject.limit.limit).toBeGreaterThan(50);
});

test('a quiet period’s latency sets the ceiling no lower than latencyCeilingMs, and busy windows teach it nothing', () => {
  const subject = limitWithClock();
  feed(subject, 50, 5, 5);
  expect(subject.limit.latencyCeiling).toBe(CEILING_MS);
  feed(subject, 50, 50, 5);
  expect(subject.limit.latencyCeiling).toBeCloseTo(150, 0);
  // Forty in flight under a limit of 100 is a queue already, however far from the limit: it must not raise the ceiling it is bounded by.
  feed(subject, 50, 400, 40);
  // Nor do windows at the limit.
  feed(subject, 50, 5_000, subject.limit.limit);
  expect(subject.limit.latencyCeiling).toBeCloseTo(150, 0);
});

test('never above its maximum', () => {
  const subject = limitWithClock(900);
  feed(subject, 500, 20, 1_000);
  expect(subject.limit.limit).toBe(1_000);
});

test('under a steady overload it settles where latency meets the ceiling, on a fast machine and a slow one, and does not drift', () => {
  for (const perMs of [2, 0.5]) {
    const subject = limitWithClock();
    const latencies = saturate(subject, 60, perMs, 10);
    const lastHalf = latencies.slice(latencies.length / 2);
    expect(Math.max(...lastHalf)).toBeLessThan(CEILING_MS * 1.1);
    // Busy enough: the server is not starved to stay fast.
    expect(Math.min(...lastHalf)).toBeGreaterThan(CEILING_MS * 0.75);
  }
});

test('a window closes only after enough samples and enough time', () => {
  const subject = limitWithClock();
  // 50 samples in the same instant: no window closes, so nothing changes whatever they say.
  for (let sample = 0; sample < 50; sample += 1) subject.limit.sample(5_000, 100);
  expect(subject.limit.limit).toBe(100);
  subject.clock.now += 100;
  subject.limit.sample(5_000, 100);
  expect(subject.limit.limit).toBe(90);
});
