import type { ApiError } from '@partner-api/shared';
import { checkNote, divideGuests, planGuests } from './comp-rules';

const failure = (work: () => unknown) => {
  try {
    work();
    return undefined;
  } catch (error) {
    const { code, param, httpStatus } = error as ApiError;
    return { code, param, httpStatus };
  }
};

describe('checking the guests of a batch', () => {
  it('keeps the order and duplicates (D58), and trims emails', () => {
    const guests = planGuests([{ email: ' a@example.com ', name: 'Ann Lee' }, { email: 'a@example.com' }]);
    expect(guests).toEqual([
      { email: 'a@example.com', firstName: 'Ann', lastName: 'Lee' },
      { email: 'a@example.com', firstName: null, lastName: null },
    ]);
  });

  it('when there are no guests or more than 50, then 400 parameter_invalid on attendees', () => {
    expect(failure(() => planGuests([]))).toEqual({ code: 'parameter_invalid', param: 'attendees', httpStatus: 400 });
    expect(failure(() => planGuests(Array.from({ length: 51 }, () => ({ email: 'a@example.com' }))))).toEqual({ code: 'parameter_invalid', param: 'attendees', httpStatus: 400 });
    expect(planGuests(Array.from({ length: 50 }, () => ({ email: 'a@example.com' })))).toHaveLength(50);
  });

  it('when a guest has no valid email, then 400 parameter_invalid naming that guest', () => {
    expect(failure(() => planGuests([{ email: 'a@example.com' }, { email: 'not-an-email' }]))).toEqual({ code: 'parameter_invalid', param: 'attendees[1].email', httpStatus: 400 });
    expect(failure(() => planGuests([{ email: '' }]))).toEqual({ code: 'parameter_invalid', param: 'attendees[0].email', httpStatus: 400 });
  });

  it('keeps a note of up to 500 characters; an empty note is none', () => {
    expect(checkNote(undefined)).toBeNull();
    expect(checkNote('')).toBeNull();
    expect(checkNote('VIP list')).toBe('VIP list');
    expect(failure(() => checkNote('x'.repeat(501)))).toEqual({ code: 'parameter_invalid', param: 'note', httpStatus: 400 });
  });
});

describe('dividing a batch when the pool runs short (D56)', () => {
  const guests = planGuests([{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'c@example.com' }]);

  it('gives the first guests in request order the tickets and lists the rest as exceeds_stock', () => {
    const { issued, failed } = divideGuests(guests, 2);
    expect(issued.map((guest) => guest.email)).toEqual(['a@example.com', 'b@example.com']);
    expect(failed).toEqual([{ email: 'c@example.com', reason: 'exceeds_stock' }]);
  });

  it('fails nobody when every guest got a ticket', () => {
    expect(divideGuests(guests, 3).failed).toEqual([]);
  });
});
