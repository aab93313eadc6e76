import { attendeeQuery } from './attendees';

const failure = (request: Parameters<typeof attendeeQuery>[0]) => {
  try {
    attendeeQuery(request);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('attendeeQuery', () => {
  it('defaults to the first page of 25 and clamps the limit to 1..100', () => {
    expect(attendeeQuery({ updatedSince: undefined, page: undefined })).toEqual({ updatedSince: undefined, afterId: undefined, limit: 25 });
    expect(attendeeQuery({ updatedSince: undefined, page: { limit: 500, after: '' } as never }).limit).toBe(100);
  });

  it('reads the keyset position (the last ticket id) and updated_since', () => {
    expect(attendeeQuery({ updatedSince: '2026-10-18T00:00:00Z', page: { limit: 10, after: '["1234"]' } as never })).toEqual({
      updatedSince: new Date('2026-10-18T00:00:00Z'),
      afterId: '1234',
      limit: 10,
    });
  });

  it.each([['["abc"]'], ['["0"]'], ['["1","2"]'], ['[1]'], ['not json']])('refuses the position %s as a bad cursor', (after) => {
    expect(failure({ updatedSince: undefined, page: { limit: 10, after } as never })).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
  });

  it('refuses an updated_since that is not a time', () => {
    expect(failure({ updatedSince: 'yesterday', page: undefined })).toMatchObject({ code: 'parameter_invalid', param: 'updated_since' });
  });
});
