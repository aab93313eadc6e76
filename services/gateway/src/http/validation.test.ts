import { z } from 'zod';
import { validate } from './validation';

const Body = z.object({
  event_id: z.number().int(),
  items: z.array(z.object({ ticket_type_id: z.number().int(), quantity: z.number().int().min(1, { error: 'quantity must be 1 to 100.' }) })),
  limit: z.coerce.number().int().min(1).default(25),
});

const errorOf = (input: unknown) => {
  try {
    validate(Body, input);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('request validation', () => {
  it('names a missing field as parameter_missing', () => {
    expect(errorOf({ items: [] })).toMatchObject({ code: 'parameter_missing', param: 'event_id', message: 'event_id is required.' });
  });

  it('names a bad value as parameter_invalid with the path as written', () => {
    expect(errorOf({ event_id: 1, items: [{ ticket_type_id: 1, quantity: 0 }] })).toMatchObject({
      code: 'parameter_invalid',
      param: 'items[0].quantity',
      message: 'quantity must be 1 to 100.',
    });
  });

  it('treats a present but unparseable value as invalid, not missing', () => {
    expect(errorOf({ event_id: 1, items: [], limit: 'abc' })).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('returns the parsed value with defaults', () => {
    expect(validate(Body, { event_id: 1, items: [] })).toEqual({ event_id: 1, items: [], limit: 25 });
  });

  it('names an absent field parameter_invalid where the endpoint says so (comp attendees), and the rest still parameter_missing', () => {
    const options = { invalidWhenMissing: (param: string) => param === 'items' || param.startsWith('items[') };
    const check = (input: unknown) => {
      try {
        validate(Body, input, options);
        return undefined;
      } catch (error) {
        return error;
      }
    };
    expect(check({ event_id: 1 })).toMatchObject({ code: 'parameter_invalid', param: 'items', message: 'items is required.' });
    expect(check({ event_id: 1, items: [{ quantity: 1 }] })).toMatchObject({ code: 'parameter_invalid', param: 'items[0].ticket_type_id' });
    expect(check({ items: [] })).toMatchObject({ code: 'parameter_missing', param: 'event_id' });
  });
});
