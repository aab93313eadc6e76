import { signingSecrets } from './signing-secrets';

const now = new Date('2026-11-23T12:00:00Z');

describe('signing secrets', () => {
  it('sign with the old secret too only while its overlap lasts', () => {
    const keys = { secret: 'whsec_new', previous_secret: 'whsec_old', previous_secret_expires_at: new Date(now.getTime() + 1) };
    expect(signingSecrets(keys, now)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets({ ...keys, previous_secret_expires_at: now }, now)).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new', previous_secret: null, previous_secret_expires_at: null }, now)).toEqual(['whsec_new']);
  });
});
