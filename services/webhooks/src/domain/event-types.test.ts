import { type ApiError } from '@partner-api/shared';
import { normaliseEventTypes, subscribes } from './event-types';

const refusal = (types: string[]) => {
  try {
    normaliseEventTypes(types);
  } catch (error) {
    return { code: (error as ApiError).code, param: (error as ApiError).param };
  }
  throw new Error('expected a refusal');
};

describe('event type subscriptions', () => {
  it('keeps catalogue types in order without duplicates, or "*" alone', () => {
    expect(normaliseEventTypes(['order.completed', 'ticket.issued', 'order.completed'])).toEqual(['order.completed', 'ticket.issued']);
    expect(normaliseEventTypes(['*', '*'])).toEqual(['*']);
  });

  it('refuses an empty list, unknown types (naming the entry) and "*" mixed with types', () => {
    expect(refusal([])).toEqual({ code: 'parameter_invalid', param: 'event_types' });
    expect(refusal(['order.completed', 'order.shipped'])).toEqual({ code: 'parameter_invalid', param: 'event_types[1]' });
    expect(refusal(['*', 'order.completed'])).toEqual({ code: 'parameter_invalid', param: 'event_types' });
  });

  it('matches a type by name, and every type for "*"', () => {
    expect(subscribes(['order.completed'], 'order.completed')).toBe(true);
    expect(subscribes(['order.completed'], 'ticket.issued')).toBe(false);
    expect(subscribes(['*'], 'waitlist.released')).toBe(true);
  });
});
