import { validate } from '../validation';
import { compBatchId, CreateCompTicketsBody } from './comp-tickets';

const check = (body: unknown) =>
  validate(CreateCompTicketsBody, body, { invalidWhenMissing: (param) => param === 'attendees' || param.startsWith('attendees[') });
const errorOf = (body: unknown) => {
  try {
    check(body);
    return undefined;
  } catch (error) {
    return error;
  }
};
const good = { event_id: 'comp-night', ticket_type_id: 7, attendees: [{ email: 'ann@example.com', name: 'Ann Lee' }] };

describe('comp ticket body', () => {
  it('takes an event id or slug, a type, an optional pool, 1 to 50 guests and a note', () => {
    expect(check(good)).toEqual(good);
    expect(check({ ...good, event_id: 42, pool_id: 3, note: 'VIP', attendees: Array.from({ length: 50 }, () => ({ email: 'a@example.com' })) })).toMatchObject({ event_id: 42, pool_id: 3 });
    expect(check({ ...good, note: null, attendees: [{ email: 'a@example.com', name: null }] })).toBeDefined();
  });

  it.each([
    [{ ...good, event_id: undefined }, 'parameter_missing', 'event_id'],
    [{ ...good, ticket_type_id: undefined }, 'parameter_missing', 'ticket_type_id'],
    [{ ...good, attendees: undefined }, 'parameter_invalid', 'attendees'],
    [{ ...good, attendees: [] }, 'parameter_invalid', 'attendees'],
    [{ ...good, attendees: Array.from({ length: 51 }, () => ({ email: 'a@example.com' })) }, 'parameter_invalid', 'attendees'],
    [{ ...good, attendees: [{ name: 'No Mail' }] }, 'parameter_invalid', 'attendees[0].email'],
    [{ ...good, attendees: [{ email: 'a@example.com' }, { email: 'nope' }] }, 'parameter_invalid', 'attendees[1].email'],
    [{ ...good, attendees: [{ email: 'a@example.com', name: 5 }] }, 'parameter_invalid', 'attendees[0].name'],
    [{ ...good, pool_id: 0 }, 'parameter_invalid', 'pool_id'],
    [{ ...good, note: 'x'.repeat(501) }, 'parameter_invalid', 'note'],
  ])('refuses %p with %s on %s', (body, code, param) => {
    expect(errorOf(body)).toMatchObject({ code, param });
  });
});

describe('comp batch ids', () => {
  it('are the same for the same API key, Idempotency-Key and body (keys in any order), and differ otherwise', () => {
    expect(compBatchId(7, 'k1', { a: 1, b: [2] })).toBe(compBatchId(7, 'k1', { b: [2], a: 1 }));
    expect(compBatchId(7, 'k1', good)).not.toBe(compBatchId(8, 'k1', good));
    expect(compBatchId(7, 'k1', good)).not.toBe(compBatchId(7, 'k2', good));
    expect(compBatchId(7, 'k1', good)).not.toBe(compBatchId(7, 'k1', { ...good, note: 'another batch' }));
    expect(compBatchId(7, undefined, good)).not.toBe(compBatchId(7, undefined, good));
    expect(compBatchId(7, 'k1', good)).toMatch(/^comp_[0-9a-f]{40}$/);
  });
});
