import { DashboardError } from './dashboard-error';
import { localFieldValue, waitingRoomChange } from './waiting-room-form';

const refusal = (run: () => unknown): { status: number; field?: string; message: string } => {
  try {
    run();
  } catch (error) {
    if (error instanceof DashboardError) return { status: error.status, field: error.field, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

describe('waitingRoomChange', () => {
  it('reads the opening time on the event’s clock, with its offset there on that day', () => {
    expect(waitingRoomChange({ enabled: 'on', opens_at: '2026-12-01T09:00', rate_kind: 'automatic' }, 'Australia/Sydney')).toEqual({
      enabled: true,
      opensAt: '2026-12-01T09:00:00+11:00',
      rate: 'automatic',
    });
    // Winter in Sydney, and a zone without daylight saving.
    expect(waitingRoomChange({ enabled: 'off', opens_at: '2026-07-01T09:00:00', rate_kind: 'fixed', rate: ' 12.5 ' }, 'Australia/Sydney')).toEqual({
      enabled: false,
      opensAt: '2026-07-01T09:00:00+10:00',
      rate: '12.5',
    });
    expect(waitingRoomChange({ enabled: 'on', opens_at: '2026-12-01T09:00', rate_kind: 'automatic' }, 'UTC').opensAt).toBe('2026-12-01T09:00:00Z');
  });

  it('refuses a time the clocks skip, naming the field', () => {
    // Sydney's clocks go from 2:00 to 3:00 on 4 October 2026.
    expect(refusal(() => waitingRoomChange({ enabled: 'on', opens_at: '2026-10-04T02:30', rate_kind: 'automatic' }, 'Australia/Sydney'))).toEqual({
      status: 400,
      field: 'opens_at',
      message: '2026-10-04 02:30 does not happen in Australia/Sydney: the clocks go forward then. Choose another time.',
    });
  });

  it('refuses a missing or malformed choice with the field it is about', () => {
    const good = { enabled: 'on', opens_at: '2026-12-01T09:00', rate_kind: 'automatic', rate: '' };
    expect(refusal(() => waitingRoomChange({ ...good, enabled: 'yes' }, 'UTC'))).toMatchObject({ status: 400, field: 'enabled' });
    for (const opens_at of ['', '2026-12-01', '2026-13-01T09:00', '2026-12-01T25:00', 'tomorrow', '2026-12-01T09:00+11:00']) {
      expect(refusal(() => waitingRoomChange({ ...good, opens_at }, 'UTC'))).toMatchObject({ status: 400, field: 'opens_at' });
    }
    expect(refusal(() => waitingRoomChange({ ...good, rate_kind: 'fixed', rate: ' ' }, 'UTC'))).toMatchObject({ status: 400, field: 'rate' });
    expect(refusal(() => waitingRoomChange({ ...good, rate_kind: 'fast' }, 'UTC'))).toMatchObject({ status: 400, field: 'rate' });
  });
});

describe('localFieldValue', () => {
  it('shows an ISO time on the zone’s clock as a datetime-local field takes it', () => {
    expect(localFieldValue('2026-11-30T22:00:00.000Z', 'Australia/Sydney')).toBe('2026-12-01T09:00');
    expect(localFieldValue('2026-12-01T09:00:00+11:00', 'UTC')).toBe('2026-11-30T22:00');
    expect(localFieldValue('', 'UTC')).toBe('');
    expect(localFieldValue(undefined, 'UTC')).toBe('');
    expect(localFieldValue('not a time', 'UTC')).toBe('');
  });
});
