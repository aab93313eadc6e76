import { newEndpointSecret, secretHint, signatureHeader, verifySignature } from './signature';

const BODY = '{"id":"evt_1","object":"event"}';
const SECRET = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
const OLD_SECRET = 'whsec_OLDabcdefghijklmnopqrstuvwxyz01';
const T = 1763890000;

describe('webhook signatures', () => {
  it('signs <t>.<body> with HMAC-SHA256 keyed by the whole whsec_ secret (known answer)', () => {
    // Computed independently: python3 hmac.new(secret, b"1763890000." + body, sha256).hexdigest()
    expect(signatureHeader([SECRET], BODY, T)).toBe('t=1763890000,v1=75214f9ed8d9525ea8583c58ef174bbaa552b8d06ccab93599dbc34703d67f03');
  });

  it('carries the new secret first and the old one second during a rotation', () => {
    expect(signatureHeader([SECRET, OLD_SECRET], BODY, T)).toBe(
      't=1763890000,v1=75214f9ed8d9525ea8583c58ef174bbaa552b8d06ccab93599dbc34703d67f03,v1=0472ab595923183b70a2ba1248bf6ce0c516c19cf934136f728aaa22fdd8f33f',
    );
  });

  it('verifies with either secret, and refuses a changed body, another secret or a stale timestamp', () => {
    const header = signatureHeader([SECRET, OLD_SECRET], BODY, T);
    expect(verifySignature(header, BODY, SECRET, T + 10)).toBe(true);
    expect(verifySignature(header, BODY, OLD_SECRET, T + 10)).toBe(true);
    expect(verifySignature(header, `${BODY} `, SECRET, T + 10)).toBe(false);
    expect(verifySignature(header, BODY, newEndpointSecret(), T + 10)).toBe(false);
    expect(verifySignature(header, BODY, SECRET, T + 301)).toBe(false);
    expect(verifySignature(header, BODY, SECRET, T - 301)).toBe(false);
    expect(verifySignature('v1=zz', BODY, SECRET, T)).toBe(false);
  });

  it('makes secrets of whsec_ and 32 base62 characters, shown afterwards only as a hint', () => {
    const secret = newEndpointSecret();
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(newEndpointSecret()).not.toBe(secret);
    expect(secretHint(secret)).toBe(`whsec_…${secret.slice(-4)}`);
  });
});
