/**
 * When an endpoint is disabled automatically (the spec): after 50
 * consecutive failed deliveries, or once it has been failing for 3 days
 * with at least 5 consecutive failures. The reason is kept in
 * `disabled_reason`.
 */
export const MAX_CONSECUTIVE_FAILURES = 50;
export const FAILING_PERIOD_MS = 3 * 24 * 3_600_000;
export const MIN_FAILURES_OVER_PERIOD = 5;

export type DisabledReason = 'consecutive_failures' | 'failing_for_3_days';

export function disableReason(health: { consecutive_failures: number; failing_since: Date | null }, now: Date): DisabledReason | null {
  if (health.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) return 'consecutive_failures';
  const failingFor = health.failing_since ? now.getTime() - health.failing_since.getTime() : 0;
  if (failingFor >= FAILING_PERIOD_MS && health.consecutive_failures >= MIN_FAILURES_OVER_PERIOD) return 'failing_for_3_days';
  return null;
}

/**
 * When the 3-day rule disables a failing endpoint if its failures go on:
 * the first failure recorded from then on disables it, once the run has
 * reached 5 in a row. Null while it is not failing, and once it is disabled.
 */
export function disablesAt(health: { enabled: boolean; failing_since: Date | null }): Date | null {
  if (!health.enabled || !health.failing_since) return null;
  return new Date(health.failing_since.getTime() + FAILING_PERIOD_MS);
}
