import { disableReason, disablesAt } from './endpoint-health';

const now = new Date('2026-11-23T12:00:00Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);

describe('automatic disabling', () => {
  it('disables after 50 consecutive failures, however recent', () => {
    expect(disableReason({ consecutive_failures: 49, failing_since: hoursAgo(1) }, now)).toBeNull();
    expect(disableReason({ consecutive_failures: 50, failing_since: hoursAgo(1) }, now)).toBe('consecutive_failures');
  });

  it('disables after 3 days of failing with at least 5 consecutive failures', () => {
    expect(disableReason({ consecutive_failures: 5, failing_since: hoursAgo(72) }, now)).toBe('failing_for_3_days');
    expect(disableReason({ consecutive_failures: 4, failing_since: hoursAgo(100) }, now)).toBeNull();
    expect(disableReason({ consecutive_failures: 8, failing_since: hoursAgo(71.9) }, now)).toBeNull();
  });

  it('leaves a healthy endpoint alone', () => {
    expect(disableReason({ consecutive_failures: 0, failing_since: null }, now)).toBeNull();
  });
});

describe('when the 3-day rule would disable an endpoint', () => {
  it('is 3 days after its failures began', () => {
    expect(disablesAt({ enabled: true, failing_since: hoursAgo(10) })).toEqual(new Date(hoursAgo(10).getTime() + 72 * 3_600_000));
  });

  it('is not set for a healthy or an already disabled endpoint', () => {
    expect(disablesAt({ enabled: true, failing_since: null })).toBeNull();
    expect(disablesAt({ enabled: false, failing_since: hoursAgo(80) })).toBeNull();
  });
});
