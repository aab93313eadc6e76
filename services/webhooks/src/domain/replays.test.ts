import { replaySince } from './replays';
import { windowStart } from './event-feed';

const now = new Date('2026-11-25T09:00:00Z');

describe('which events a replay reaches back to', () => {
  it('takes the given time when it lies inside the 30 days events are kept', () => {
    expect(replaySince('2026-11-20T00:00:00Z', now)).toEqual(new Date('2026-11-20T00:00:00Z'));
    expect(replaySince('2026-11-25T10:00:00+02:00', now)).toEqual(new Date('2026-11-25T08:00:00Z'));
  });

  it('reaches back no further than 30 days', () => {
    expect(replaySince('2026-01-01T00:00:00Z', now)).toEqual(new Date('2026-10-26T09:00:00Z'));
    expect(windowStart(undefined, now)).toEqual(new Date('2026-10-26T09:00:00Z'));
  });

  it('refuses a missing, malformed or future time with the parameter named', () => {
    expect(() => replaySince('', now)).toThrow(expect.objectContaining({ code: 'parameter_missing', param: 'since' }));
    expect(() => replaySince('yesterday', now)).toThrow(expect.objectContaining({ code: 'parameter_invalid', param: 'since' }));
    expect(() => replaySince('2026-13-45T00:00:00Z', now)).toThrow(expect.objectContaining({ code: 'parameter_invalid', param: 'since' }));
    expect(() => replaySince('2026-11-26T00:00:00Z', now)).toThrow(expect.objectContaining({ code: 'parameter_invalid', param: 'since' }));
  });
});
