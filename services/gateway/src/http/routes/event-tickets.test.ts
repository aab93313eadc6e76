import { validate } from '../validation';
import { AttendeeListQuery, CheckInBody } from './event-tickets';

const errorOf = (schema: Parameters<typeof validate>[0], input: unknown) => {
  try {
    validate(schema, input);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('check-in body', () => {
  it('takes code, ticket_id, both, neither (the tickets service answers parameter_missing), and null as not sent', () => {
    expect(validate(CheckInBody, { code: 'AbC' })).toEqual({ code: 'AbC' });
    expect(validate(CheckInBody, { ticket_id: 12 })).toEqual({ ticket_id: 12 });
    expect(validate(CheckInBody, { code: 'AbC', ticket_id: 12 })).toEqual({ code: 'AbC', ticket_id: 12 });
    expect(validate(CheckInBody, {})).toEqual({});
    expect(validate(CheckInBody, { code: null, ticket_id: null })).toEqual({ code: null, ticket_id: null });
  });

  it.each([
    [{ code: 42 }, 'code'],
    [{ code: '' }, 'code'],
    [{ code: 'x'.repeat(257) }, 'code'],
    [{ ticket_id: '12' }, 'ticket_id'],
    [{ ticket_id: 1.5 }, 'ticket_id'],
    [{ ticket_id: 0 }, 'ticket_id'],
    [{ ticket_id: -1 }, 'ticket_id'],
    [{ ticket_id: 2 ** 60 }, 'ticket_id'],
  ])('refuses %p with 400 parameter_invalid', (body, param) => {
    expect(errorOf(CheckInBody, body)).toMatchObject({ code: 'parameter_invalid', param });
  });
});

describe('attendee list query', () => {
  it('takes checked_in true or false and nothing else', () => {
    expect(validate(AttendeeListQuery, { checked_in: 'true' })).toMatchObject({ checked_in: 'true', limit: 25 });
    expect(validate(AttendeeListQuery, { checked_in: 'false' })).toMatchObject({ checked_in: 'false' });
    for (const value of ['1', 'TRUE', 'yes', '', ['true', 'false']]) {
      expect(errorOf(AttendeeListQuery, { checked_in: value })).toMatchObject({ code: 'parameter_invalid', param: 'checked_in' });
    }
  });
});
