/**
 * The retry schedule as data: the delay before each attempt after the
 * first, measured from the attempt before it. The spec's schedule is 8
 * attempts over about 24 hours.
 */

/** Attempt 2 one minute after attempt 1, then 5 min, 30 min, 2 h, 5 h, 8 h, 8 h (attempt 8 is the last). */
export const SPEC_RETRY_SCHEDULE = '1m,5m,30m,2h,5h,8h,8h';

export interface RetrySchedule {
  /** delaysMs[i] is the wait between attempt i + 1 and attempt i + 2. */
  readonly delaysMs: readonly number[];
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `1m,5m,30m` → delays in milliseconds; each entry a whole number with a unit (ms, s, m, h, d). */
export function parseRetrySchedule(text: string): RetrySchedule {
  const delaysMs = text.split(',').map((entry) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(entry.trim());
    if (!match) throw new Error(`not a duration: "${entry.trim()}" (expected e.g. 30s, 5m, 2h)`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
  return { delaysMs };
}

export const maxAttempts = (schedule: RetrySchedule): number => schedule.delaysMs.length + 1;

/** When the attempt after `attempt` is due, or null when `attempt` was the last. */
export function nextAttemptAt(schedule: RetrySchedule, attempt: number, from: Date): Date | null {
  const delay = schedule.delaysMs[attempt - 1];
  return delay === undefined ? null : new Date(from.getTime() + delay);
}
