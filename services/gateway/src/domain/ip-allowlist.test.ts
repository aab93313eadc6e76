import { isAllowed, parseAllowlist } from './ip-allowlist';

describe('IP allowlists', () => {
  it('allow any address when empty', () => {
    expect(isAllowed([], '203.0.113.9')).toBe(true);
  });

  it('normalise the comma-separated form into ranges', () => {
    expect(parseAllowlist(' 203.0.113.7, 198.51.100.0/24 ,2001:db8::/32')).toEqual([
      '203.0.113.7/32',
      '198.51.100.0/24',
      '2001:db8::/32',
    ]);
  });

  it('reject entries that are not addresses or ranges', () => {
    expect(() => parseAllowlist('not-an-ip')).toThrow();
    expect(() => parseAllowlist('10.0.0.0/33')).toThrow();
  });

  it('match single addresses and CIDR ranges, IPv4 and IPv6', () => {
    const list = parseAllowlist('203.0.113.7,198.51.100.0/24,2001:db8::/32');
    expect(isAllowed(list, '203.0.113.7')).toBe(true);
    expect(isAllowed(list, '203.0.113.8')).toBe(false);
    expect(isAllowed(list, '198.51.100.250')).toBe(true);
    expect(isAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(isAllowed(list, '2001:db9::1')).toBe(false);
  });

  it('compare IPv4-mapped IPv6 callers as IPv4', () => {
    expect(isAllowed(parseAllowlist('127.0.0.1'), '::ffff:127.0.0.1')).toBe(true);
  });

  it('refuse a caller whose address cannot be parsed', () => {
    expect(isAllowed(parseAllowlist('127.0.0.1'), '')).toBe(false);
  });
});
