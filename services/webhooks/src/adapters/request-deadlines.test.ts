import { RequestDeadlines } from './request-deadlines';

describe('request deadlines', () => {
  it('share one signal among the requests of a window, and begin a new one after it', () => {
    let now = 1_000;
    const deadlines = new RequestDeadlines(5_000, 10, () => now);
    const first = deadlines.next();
    now += 9;
    expect(deadlines.next()).toBe(first);
    now += 1;
    const second = deadlines.next();
    expect(second).not.toBe(first);
    expect(first.aborted).toBe(false);
  });

  it('abort no sooner than the timeout after the last request of the window began, and with a timeout', async () => {
    const deadlines = new RequestDeadlines(60, 20);
    const began = performance.now();
    const signal = deadlines.next();
    const aborted = await new Promise<number>((resolve) => signal.addEventListener('abort', () => resolve(performance.now() - began)));
    // The window's last request may begin up to 20 ms after the first: it still gets its 60. (Timers count
    // from the event loop's cached time, which may lag a few ms behind `began`: 70 still shows the 20 added.)
    expect(aborted).toBeGreaterThanOrEqual(70);
    expect((signal.reason as Error).name).toBe('TimeoutError');
  });
});
