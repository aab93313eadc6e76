import { ApiError } from '@partner-api/shared';
import { MAX_VOID_REASON_LENGTH, voidReason, voidRestockId, voidVerdict } from './voids';

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return [error.code, error.param, error.httpStatus];
    throw error;
  }
  throw new Error('not refused');
};

describe('voiding a ticket', () => {
  it('voids a valid ticket, leaves a void one as it is, and refuses refunded and checked-in ones', () => {
    expect(voidVerdict({ status: 'valid' })).toBe('void');
    expect(voidVerdict({ status: 'void' })).toBe('unchanged');
    expect(refusal(() => voidVerdict({ status: 'refunded' }))).toEqual(['ticket_void', 'id', 422]);
    expect(refusal(() => voidVerdict({ status: 'checked_in' }))).toEqual(['parameter_invalid', 'id', 422]);
  });

  it('keeps a trimmed reason, none as null, and refuses one too long or not text', () => {
    expect(voidReason('  chargeback ')).toBe('chargeback');
    expect(voidReason('   ')).toBeNull();
    expect(voidReason('x'.repeat(MAX_VOID_REASON_LENGTH))).toHaveLength(MAX_VOID_REASON_LENGTH);
    expect(refusal(() => voidReason('x'.repeat(MAX_VOID_REASON_LENGTH + 1)))).toEqual(['parameter_invalid', 'reason', 400]);
    expect(refusal(() => voidReason('a\u0000b'))).toEqual(['parameter_invalid', 'reason', 400]);
  });

  it('restocks each ticket under an id of its own', () => {
    expect(voidRestockId('42')).toBe('void-42');
    expect(voidRestockId('42')).not.toBe(voidRestockId('43'));
  });
});
