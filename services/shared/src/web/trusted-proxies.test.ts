import { trustedProxiesEnv } from './trusted-proxies';

test('by default no proxy is trusted', () => {
  expect(trustedProxiesEnv.parse(undefined)).toEqual([]);
  expect(trustedProxiesEnv.parse('')).toEqual([]);
});

test('addresses and CIDR ranges, IPv4 and IPv6, become ranges', () => {
  expect(trustedProxiesEnv.parse(' 10.0.0.0/8, 192.0.2.7 ,fd00::/8, ::1')).toEqual(['10.0.0.0/8', '192.0.2.7/32', 'fd00::/8', '::1/128']);
});

test.each(['loopback', 'loopback,uniquelocal', 'true', '1', '10.0.0.0/33', '127.1', '0x7f.0.0.1', 'proxy.example.com', '10.0.0.1, nope'])(
  'refuses %j: trust names the proxies it means',
  (value) => {
    const result = trustedProxiesEnv.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/is not an IP address or CIDR range/);
  },
);
