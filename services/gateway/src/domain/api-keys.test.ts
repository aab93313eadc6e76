import { type ApiError } from '@partner-api/shared';
import { assertKeyUsable, displayParts, generateSecret, hashSecret, KEY_SHAPE, rateLimitFor, type StoredKey } from './api-keys';

const key = (overrides: Partial<StoredKey> = {}): StoredKey => ({
  id: 1,
  organisationId: 1,
  organisationName: 'Org',
  organisationSlug: 'org',
  name: 'k',
  mode: 'live',
  prefix: 'svc_live_abcd',
  scopes: ['events:read'],
  ipAllowlist: [],
  rateLimit: null,
  revokedAt: null,
  expiresAt: null,
  ...overrides,
});

const codeOf = (run: () => void) => {
  try {
    run();
    return 'ok';
  } catch (error) {
    return (error as ApiError).code;
  }
};

describe('API keys', () => {
  it('have the spec shape: marker plus 32 base62 characters', () => {
    expect(generateSecret('live')).toMatch(KEY_SHAPE);
    expect(generateSecret('test')).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
    expect(KEY_SHAPE.test('svc_live_short')).toBe(false);
  });

  it('show only the mode marker and four characters as prefix, and the last four', () => {
    const secret = 'svc_live_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
    expect(displayParts(secret)).toEqual({ prefix: 'svc_live_ABCD', last4: '2345' });
  });

  it('hash to a fixed 32-byte digest so only the hash is stored', () => {
    expect(hashSecret('svc_live_x')).toHaveLength(32);
    expect(hashSecret('a').equals(hashSecret('b'))).toBe(false);
  });

  it('are refused once revoked, and once a roll grace period ends', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    expect(codeOf(() => assertKeyUsable(key(), now))).toBe('ok');
    expect(codeOf(() => assertKeyUsable(key({ revokedAt: new Date('2026-11-22T11:00:00Z') }), now))).toBe('api_key_revoked');
    expect(codeOf(() => assertKeyUsable(key({ expiresAt: new Date('2026-11-22T11:59:59Z') }), now))).toBe('api_key_expired');
    expect(codeOf(() => assertKeyUsable(key({ expiresAt: new Date('2026-11-22T12:00:01Z') }), now))).toBe('ok');
  });

  it('report revoked before expired when both apply', () => {
    const past = new Date('2026-01-01T00:00:00Z');
    expect(codeOf(() => assertKeyUsable(key({ revokedAt: past, expiresAt: past }), new Date()))).toBe('api_key_revoked');
  });

  it('default to 120 requests a minute live, 60 test, or the custom limit', () => {
    expect(rateLimitFor(key())).toBe(120);
    expect(rateLimitFor(key({ mode: 'test' }))).toBe(60);
    expect(rateLimitFor(key({ rateLimit: 1000 }))).toBe(1000);
  });
});
