import { customerFields, customerMessage } from './customer';

test('snake_case with nulls and the proto message map to each other, field by field', () => {
  const fields = { email: 'ada@example.com', first_name: 'Ada', last_name: null, phone: '+61 400 000 000' };
  const message = customerMessage(fields);
  expect(message).toEqual({ email: 'ada@example.com', firstName: 'Ada', lastName: undefined, phone: '+61 400 000 000' });
  expect(customerFields(message)).toEqual(fields);
});

test('fields not given read as absent one way and as null the other', () => {
  expect(customerMessage({})).toEqual({ email: undefined, firstName: undefined, lastName: undefined, phone: undefined });
  expect(customerFields({})).toEqual({ email: null, first_name: null, last_name: null, phone: null });
});
