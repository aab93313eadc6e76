import { splitName } from './person-name';

describe("splitting a guest's name (D57)", () => {
  it.each([
    ['Ann Lee', 'Ann', 'Lee'],
    ['  Mary   Jane  Watson ', 'Mary Jane', 'Watson'],
    ['Ludwig van Beethoven', 'Ludwig', 'van Beethoven'],
    ['Maria de la Cruz', 'Maria', 'de la Cruz'],
    ['Anwar bin Ibrahim', 'Anwar', 'bin Ibrahim'],
    ['Van Morrison', 'Van', 'Morrison'],
    ['Watson, Mary Jane', 'Mary Jane', 'Watson'],
    ['Cher', 'Cher', null],
    ['van Dyke', 'van', 'Dyke'],
  ])('%s → %s / %s', (name, first, last) => {
    expect(splitName(name)).toEqual({ firstName: first, lastName: last });
  });

  it('leaves both null without a name', () => {
    expect(splitName(undefined)).toEqual({ firstName: null, lastName: null });
    expect(splitName('   ')).toEqual({ firstName: null, lastName: null });
  });

  it('takes a name with more than one comma word by word', () => {
    expect(splitName('Lee, Ann, Jr')).toEqual({ firstName: 'Lee, Ann,', lastName: 'Jr' });
  });
});
