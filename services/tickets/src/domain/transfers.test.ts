import { create } from '@bufbuild/protobuf';
import { ApiError, gen } from '@partner-api/shared';
import { transferee, transferVerdict } from './transfers';

const request = (attendee: { email?: string; firstName?: string; lastName?: string }) => create(gen.tickets.TransferTicketRequestSchema, { id: 1n, attendee });
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return [error.code, error.param, error.httpStatus];
    throw error;
  }
  throw new Error('not refused');
};

describe('the new attendee of a transfer', () => {
  it('needs an email address and keeps names trimmed, or null', () => {
    expect(transferee(request({ email: ' ann@example.com ', firstName: '  Ann  Marie ', lastName: '' }))).toEqual({
      attendee_email: 'ann@example.com',
      attendee_first_name: 'Ann Marie',
      attendee_last_name: null,
    });
    expect(refusal(() => transferee(request({})))).toEqual(['parameter_missing', 'attendee.email', 400]);
    expect(refusal(() => transferee(request({ email: 'not-an-email' })))).toEqual(['parameter_invalid', 'attendee.email', 400]);
    expect(refusal(() => transferee(request({ email: 'a@b.co', lastName: 'x'.repeat(201) })))).toEqual(['parameter_invalid', 'attendee.last_name', 400]);
    expect(refusal(() => transferee(request({ email: 'a@b.co', firstName: 'A\u0000' })))).toEqual(['parameter_invalid', 'attendee.first_name', 400]);
  });
});

describe('whether a ticket can be transferred', () => {
  const to = { attendee_email: 'ben@example.com', attendee_first_name: 'Ben', attendee_last_name: 'Ng' };
  const ticket = (status: 'valid' | 'checked_in' | 'refunded' | 'void', email = 'ann@example.com') => ({ status, attendee_email: email, attendee_first_name: 'Ben', attendee_last_name: 'Ng' });

  it('moves a valid ticket, and leaves one its attendee already holds (a retry) as it is', () => {
    expect(transferVerdict(ticket('valid'), to)).toBe('transfer');
    expect(transferVerdict(ticket('valid', 'BEN@example.com'), to)).toBe('unchanged');
    expect(transferVerdict({ ...ticket('valid', 'ben@example.com'), attendee_last_name: 'Ngo' }, to)).toBe('transfer');
  });

  it('refuses refunded and void tickets as void, and checked-in ones as 422', () => {
    expect(refusal(() => transferVerdict(ticket('refunded'), to))).toEqual(['ticket_void', 'id', 422]);
    expect(refusal(() => transferVerdict(ticket('void'), to))).toEqual(['ticket_void', 'id', 422]);
    expect(refusal(() => transferVerdict(ticket('checked_in'), to))).toEqual(['parameter_invalid', 'id', 422]);
  });
});
