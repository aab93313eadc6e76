import { doneMessage } from './views';

describe('the message a redirect leaves (?done=)', () => {
  it('is the outcome named, with its figures when it has any', () => {
    expect(doneMessage({ done: 'endpoint_enabled' })).toMatch(/^The endpoint is enabled/);
    expect(doneMessage({ done: 'delivery_resent', event: 'evt_1a2B', attempt: '3' })).toBe('Event evt_1a2B is queued again as attempt 3.');
    expect(doneMessage({ done: 'endpoint_recovered', queued: '12', since: '2026-11-26T08:00:00Z' })).toBe('12 failed or missed deliveries since 2026-11-26T08:00:00Z are queued again.');
  });

  it('is nothing for an unknown outcome, or figures a crafted link made up', () => {
    expect(doneMessage({ done: 'account_closed' })).toBeUndefined();
    expect(doneMessage({})).toBeUndefined();
    expect(doneMessage({ done: 'delivery_resent', event: 'Call +1 555 0100 to restore access', attempt: '3' })).toBeUndefined();
    expect(doneMessage({ done: 'delivery_resent', event: 'evt_1', attempt: ['3', '4'] })).toBeUndefined();
    expect(doneMessage({ done: 'endpoint_recovered', queued: '12', since: 'yesterday' })).toBeUndefined();
  });
});
