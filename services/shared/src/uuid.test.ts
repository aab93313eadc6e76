import { createHash } from 'node:crypto';
import { isUuid, nameBasedUuid } from './uuid';

test('isUuid takes a uuid of any version in either case, and nothing else', () => {
  expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true);
  expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
  expect(isUuid(nameBasedUuid(createHash('sha256').update('a name').digest()))).toBe(true);
  expect(isUuid('------------------------------------')).toBe(false);
  expect(isUuid('0f8fad5bd9cb469fa16570867728950e')).toBe(false);
  expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e ')).toBe(false);
  expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950g')).toBe(false);
  expect(isUuid('')).toBe(false);
});
