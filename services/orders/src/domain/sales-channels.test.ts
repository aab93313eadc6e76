import { refusal } from '../../../shared/test/refusal';
import { ChannelTokens, embeddingOrigin, parseOrigin } from './sales-channels';

const SECRET = 'a-test-secret-of-at-least-32-characters';
const claim = { salesChannel: 'embed' as const, organisationId: 7, eventId: '42', origin: 'https://shop.example.com' };

describe('parseOrigin', () => {
  it('gives the origin as the URL parser writes it', () => {
    expect(parseOrigin('https://Shop.Example.COM')).toBe('https://shop.example.com');
    expect(parseOrigin(' https://shop.example.com/ ')).toBe('https://shop.example.com');
    expect(parseOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
    expect(parseOrigin('https://shop.example.com:8443')).toBe('https://shop.example.com:8443');
    expect(parseOrigin('https://bücher.example')).toBe('https://xn--bcher-kva.example');
  });

  it('takes http only on a loopback host', () => {
    expect(parseOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(parseOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(parseOrigin('http://[::1]:8080')).toBe('http://[::1]:8080');
    expect(refusal(() => parseOrigin('http://shop.example.com')).message).toMatch(/https/);
  });

  it.each([
    ['', /site address/],
    ['shop.example.com', /site address/],
    ['javascript:alert(1)', /https/],
    ['ftp://shop.example.com', /https/],
    ['https://user:pw@shop.example.com', /user name/],
    ['https://shop.example.com/tickets', /no path/],
    ['https://shop.example.com/?a=1', /no path/],
    ['https://shop.example.com?', /no path/],
    ['https://shop.example.com#top', /no path/],
    [`https://${'a'.repeat(200)}.example`, /at most 200/],
  ])('refuses %j as parameter_invalid on origin', (input, message) => {
    const error = refusal(() => parseOrigin(input));
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toBe('origin');
    expect(error.message).toMatch(message);
  });
});

describe('embeddingOrigin', () => {
  it("is the origin of the frame request's Referer", () => {
    expect(embeddingOrigin({ referer: 'https://shop.example.com/gigs/night?x=1#y' })).toBe('https://shop.example.com');
    expect(embeddingOrigin({ referer: 'http://127.0.0.1:5000/' })).toBe('http://127.0.0.1:5000');
  });

  it('is undefined without a Referer or with one that is no web address', () => {
    expect(embeddingOrigin({})).toBeUndefined();
    expect(embeddingOrigin({ referer: '' })).toBeUndefined();
    expect(embeddingOrigin({ referer: 'not a url' })).toBeUndefined();
    expect(embeddingOrigin({ referer: 'file:///etc/passwd' })).toBeUndefined();
    expect(embeddingOrigin({ referer: 'data:text/html,hi' })).toBeUndefined();
  });
});

describe('ChannelTokens', () => {
  let now = new Date('2026-11-25T10:00:00Z');
  const tokens = new ChannelTokens(SECRET, 3_600, () => now);
  afterEach(() => {
    now = new Date('2026-11-25T10:00:00Z');
  });
  const expected = { salesChannel: claim.salesChannel, organisationId: claim.organisationId, eventId: claim.eventId };

  it('gives back the origin it was issued for', () => {
    expect(tokens.read(tokens.issue(claim), expected)).toEqual({ origin: 'https://shop.example.com', expired: false });
    expect(tokens.read(tokens.issue({ ...claim, salesChannel: 'web', origin: null }), { ...expected, salesChannel: 'web' })).toEqual({ origin: null, expired: false });
  });

  it('is new on every page', () => {
    expect(tokens.issue(claim)).not.toBe(tokens.issue(claim));
  });

  it('refuses a token for another organisation, event or channel', () => {
    const token = tokens.issue(claim);
    for (const other of [{ ...expected, organisationId: 8 }, { ...expected, eventId: '43' }, { ...expected, salesChannel: 'storefront' as const }]) {
      expect(refusal(() => tokens.read(token, other))).toMatchObject({ code: 'parameter_invalid', param: 'token' });
    }
  });

  it('refuses a token whose origin was changed, even when signed again without the secret', () => {
    const [payload] = tokens.issue(claim).split('.');
    const body = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...body, origin: 'https://evil.example' })).toString('base64url');
    const otherKey = new ChannelTokens('another-secret-of-at-least-32-characters', 3_600, () => now);
    const [, foreignMac] = otherKey.issue({ ...claim, origin: 'https://evil.example' }).split('.');
    expect(refusal(() => tokens.read(`${forged}.${foreignMac}`, expected)).code).toBe('parameter_invalid');
    expect(refusal(() => tokens.read(`${forged}.${tokens.issue(claim).split('.')[1]}`, expected)).code).toBe('parameter_invalid');
  });

  it('refuses a missing or malformed token', () => {
    const token = tokens.issue(claim);
    for (const bad of [undefined, '', 'abc', `${token}.x`, token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))]) {
      expect(refusal(() => tokens.read(bad, expected)).message).toMatch(/not made by this page/);
    }
  });

  it('tells when its time is up, still naming its origin', () => {
    const token = tokens.issue(claim);
    now = new Date(now.getTime() + 3_599_000);
    expect(tokens.read(token, expected).expired).toBe(false);
    now = new Date(now.getTime() + 1_000);
    expect(tokens.read(token, expected)).toEqual({ origin: 'https://shop.example.com', expired: true });
  });

  it('names one session per token and choice', () => {
    const token = tokens.issue(claim);
    const id = tokens.sessionId(token, '5x2');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(tokens.sessionId(token, '5x2')).toBe(id);
    expect(tokens.sessionId(token, '5x3')).not.toBe(id);
    expect(tokens.sessionId(tokens.issue(claim), '5x2')).not.toBe(id);
  });
});
