import { maxAttempts, nextAttemptAt, parseRetrySchedule, SPEC_RETRY_SCHEDULE } from './retry-schedule';

describe('retry schedule', () => {
  it("is the spec's 8 attempts over about 24 hours", () => {
    const schedule = parseRetrySchedule(SPEC_RETRY_SCHEDULE);
    expect(maxAttempts(schedule)).toBe(8);
    const minutes = schedule.delaysMs.map((ms) => ms / 60_000);
    expect(minutes).toEqual([1, 5, 30, 120, 300, 480, 480]);
    const totalHours = schedule.delaysMs.reduce((sum, ms) => sum + ms, 0) / 3_600_000;
    expect(totalHours).toBeGreaterThan(23);
    expect(totalHours).toBeLessThan(25);
  });

  it('dates each attempt from the one before it, and has none after the last', () => {
    const schedule = parseRetrySchedule('1m,5m');
    const at = new Date('2026-11-23T10:00:00Z');
    expect(nextAttemptAt(schedule, 1, at)?.toISOString()).toBe('2026-11-23T10:01:00.000Z');
    expect(nextAttemptAt(schedule, 2, at)?.toISOString()).toBe('2026-11-23T10:05:00.000Z');
    expect(nextAttemptAt(schedule, 3, at)).toBeNull();
  });

  it('reads ms, s, m, h and d, and refuses anything else', () => {
    expect(parseRetrySchedule('250ms, 2s,1d').delaysMs).toEqual([250, 2_000, 86_400_000]);
    expect(() => parseRetrySchedule('5 minutes')).toThrow('not a duration: "5 minutes"');
    expect(() => parseRetrySchedule('1m,,2m')).toThrow('not a duration');
    expect(() => parseRetrySchedule('-1s')).toThrow('not a duration');
  });
});
