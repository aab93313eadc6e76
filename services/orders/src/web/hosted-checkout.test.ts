import { refusal } from '../../../shared/test/refusal';
import { expiryFrom } from './hosted-checkout';

describe('expiryFrom', () => {
  it.each([
    ['12/30', 12, 2030],
    ['1230', 12, 2030],
    ['08/2029', 8, 2029],
    ['082029', 8, 2029],
    ['8/29', 8, 2029],
    [' 12 / 30 ', 12, 2030],
  ])('reads %p as month %p of %p', (typed, month, year) => {
    expect(expiryFrom(typed)).toEqual({ month, year });
  });

  it.each(['', '13/30', '00/30', '123', '12/3', '12-30', 'MM/YY', undefined])('refuses %p, naming the field', (typed) => {
    const error = refusal(() => expiryFrom(typed));
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toBe('card_expiry');
  });
});
