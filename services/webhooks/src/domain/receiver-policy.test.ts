import { addressKind, normaliseHost, ReceiverPolicy, ReceiverRefused } from './receiver-policy';

/** A resolver that answers from a table: no DNS traffic in unit tests. */
const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? [];

describe('receiver addresses', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['2606:2800:220:1:248:1893:25c8:1946', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'internal'],
    ['172.16.0.1', 'internal'],
    ['192.168.1.1', 'internal'],
    ['169.254.169.254', 'internal'],
    ['100.64.0.1', 'internal'],
    ['0.0.0.0', 'internal'],
    ['224.0.0.1', 'internal'],
    ['255.255.255.255', 'internal'],
    ['fd00::1', 'internal'],
    ['fe80::1', 'internal'],
    ['::ffff:10.0.0.1', 'internal'],
    ['2002:a00:1::', 'internal'],
    ['64:ff9b::a00:1', 'internal'],
    ['::7f00:1', 'internal'],
    ['::127.0.0.1', 'internal'],
    ['::a9fe:a9fe', 'internal'],
    ['::a00:1', 'internal'],
    ['::5db8:d822', 'internal'],
    ['::', 'internal'],
    ['not-an-address', 'internal'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe('host normalisation', () => {
  it.each([
    ['LOCALHOST.', 'localhost'],
    ['Metadata.Google.Internal.', 'metadata.google.internal'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['::127.0.0.1', '::7f00:1'],
    ['0x7f.1', '127.0.0.1'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['2130706433.', '127.0.0.1'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['hooks.example.com', 'hooks.example.com'],
  ])('%s is %s', (host, normal) => {
    expect(normaliseHost(host)).toBe(normal);
  });

  it.each(['', '[]', 'a..b', 'localhost..', 'fe80::1%eth0', 'hooks.example.com/x', 'a@b.example', 'a b.example'])('refuses %j as no host', (host) => {
    expect(() => normaliseHost(host)).toThrow(ReceiverRefused);
  });
});

describe('receiver URLs', () => {
  const strict = new ReceiverPolicy(false, resolver({}));
  const local = new ReceiverPolicy(true, resolver({}));

  it('accepts https on public hosts', () => {
    expect(strict.checkUrl('https://hooks.example.com/partner?x=1').host).toBe('hooks.example.com');
    expect(strict.checkUrl('https://93.184.216.34:8443/hook').port).toBe('8443');
  });

  it.each([
    ['not a URL', 'not a url', 'absolute https://'],
    ['plain http', 'http://hooks.example.com/', 'https'],
    ['another scheme', 'ftp://hooks.example.com/', 'https'],
    ['credentials', 'https://user:pass@hooks.example.com/', 'user name or password'],
    ['a private address', 'https://10.0.0.5/hook', 'private or internal'],
    ['cloud metadata', 'https://169.254.169.254/latest', 'private or internal'],
    ['a decimal loopback address', 'https://2130706433/', 'loopback'],
    ['an IPv6 loopback', 'https://[::1]/', 'loopback'],
    ['an IPv4-mapped private address', 'https://[::ffff:192.168.0.1]/', 'private or internal'],
    ['localhost', 'https://localhost/', 'loopback name'],
    ['a .localhost name', 'https://api.localhost/', 'loopback name'],
    ['a single-label name', 'https://intranet/', 'internal name'],
    ['a .internal name', 'https://metadata.google.internal/', 'internal name'],
    ['a .local name', 'https://printer.local/', 'internal name'],
    ['localhost with the root dot', 'https://localhost./', 'loopback name'],
    ['metadata.google.internal with the root dot', 'https://metadata.google.internal./', 'internal name'],
    ['a single label with the root dot', 'https://intranet./', 'internal name'],
    ['an IPv4-compatible loopback', 'https://[::7f00:1]/', 'private or internal'],
    ['an IPv4-compatible loopback, dotted', 'https://[::127.0.0.1]/', 'private or internal'],
    ['an IPv4-compatible metadata address', 'https://[::a9fe:a9fe]/', 'private or internal'],
    ['an IPv4-compatible private address', 'https://[::a00:1]/', 'private or internal'],
    ['a URL over 2,048 characters', `https://hooks.example.com/${'a'.repeat(100_000)}`, 'at most 2048 characters'],
  ])('refuses %s', (_, url, message) => {
    expect(() => strict.checkUrl(url)).toThrow(ReceiverRefused);
    expect(() => strict.checkUrl(url)).toThrow(message);
  });

  it('allows loopback, over http too, only when local receivers are switched on', () => {
    expect(local.checkUrl('http://127.0.0.1:4555/hook').port).toBe('4555');
    expect(local.checkUrl('http://localhost:4555/hook').hostname).toBe('localhost');
    expect(local.checkUrl('https://[::1]:4555/').hostname).toBe('[::1]');
    expect(() => local.checkUrl('http://10.0.0.5/')).toThrow('https');
    expect(() => local.checkUrl('https://10.0.0.5/')).toThrow('private or internal');
    expect(() => local.checkUrl('http://hooks.example.com/')).toThrow('https');
    expect(local.checkUrl('http://LOCALHOST.:4555/hook').port).toBe('4555');
    expect(() => local.checkUrl('https://[::7f00:1]:4555/')).toThrow('private or internal');
  });
});

describe('registration', () => {
  const policy = new ReceiverPolicy(
    false,
    resolver({
      'hooks.example.com': ['93.184.216.34'],
      'sneaky.example.com': ['93.184.216.34', '10.0.0.7'],
      'rebind.example.com': ['127.0.0.1'],
    }),
  );

  it('accepts a name that resolves to public addresses, or does not resolve yet', async () => {
    await expect(policy.checkForRegistration('https://hooks.example.com/')).resolves.toBeInstanceOf(URL);
    await expect(policy.checkForRegistration('https://not-yet-live.example.com/')).resolves.toBeInstanceOf(URL);
  });

  it('resolves and checks the normalised name', async () => {
    await expect(policy.checkForRegistration('https://SNEAKY.Example.com./')).rejects.toThrow('10.0.0.7 is a private or internal address');
    await expect(policy.checkForRegistration('https://localhost./')).rejects.toThrow('loopback name');
    await expect(policy.checkForRegistration('https://[::a00:1]/')).rejects.toThrow('::a00:1 is a private or internal address');
  });

  it('refuses a name with any private or loopback address', async () => {
    await expect(policy.checkForRegistration('https://sneaky.example.com/')).rejects.toThrow('10.0.0.7 is a private or internal address');
    await expect(policy.checkForRegistration('https://rebind.example.com/')).rejects.toThrow('127.0.0.1 is a loopback address');
  });
});

describe('socket lookup', () => {
  const lookup = (policy: ReceiverPolicy, host: string, all: boolean) =>
    new Promise<unknown>((resolve, reject) =>
      policy.lookup(host, { all }, (error: Error | null, address: unknown) => (error ? reject(error) : resolve(address))),
    );

  it('refuses a name that resolves to loopback unless local receivers are on', async () => {
    await expect(lookup(new ReceiverPolicy(false), 'localhost', false)).rejects.toThrow(ReceiverRefused);
    await expect(lookup(new ReceiverPolicy(true), 'localhost', false)).resolves.toMatch(/^(127\.0\.0\.1|::1)$/);
    await expect(lookup(new ReceiverPolicy(true), 'localhost', true)).resolves.toEqual(expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]));
  });

  it("applies the host's own rules to the normalised name before resolving it", async () => {
    const strict = new ReceiverPolicy(false);
    await expect(lookup(strict, 'localhost.', false)).rejects.toThrow('loopback name');
    await expect(lookup(strict, 'LOCALHOST.', true)).rejects.toThrow('loopback name');
    await expect(lookup(strict, 'metadata.google.internal.', false)).rejects.toThrow('internal name');
    await expect(lookup(strict, 'intranet.', false)).rejects.toThrow('internal name');
    await expect(lookup(strict, '::7f00:1', false)).rejects.toThrow('private or internal');
    await expect(lookup(strict, 'a..b', false)).rejects.toThrow('not a host name');
    await expect(lookup(new ReceiverPolicy(true), 'LocalHost.', false)).resolves.toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
