/**
 * The receiver policy against the spellings an attacker tries: every way of
 * writing a loopback, private, link-local or internal host that the URL
 * parser, the resolver or the kernel would still take to an inside address.
 * Each row is checked as saved (checkForRegistration, with a resolver that
 * knows no names, so only the URL's own rules decide) and as sent
 * (checkUrl, which every delivery runs before the request), under the
 * default policy.
 */
import { MAX_URL_LENGTH, normaliseHost, ReceiverPolicy, ReceiverRefused } from './receiver-policy';

const policy = new ReceiverPolicy(false, async () => []);

const LOOPBACK = 'loopback address';
const PRIVATE = 'private or internal address';
const LOOPBACK_NAME = 'loopback name';
const INTERNAL_NAME = 'internal name';
const NOT_A_HOST = 'not a host name';
const NOT_A_URL = 'absolute https://';
const CREDENTIALS = 'user name or password';
const TOO_LONG = `at most ${MAX_URL_LENGTH} characters`;

/** [class, url, the refusal's message fragment] */
const refused: Array<[string, string, string]> = [
  // Loopback, in every IPv4 spelling the WHATWG parser accepts.
  ['dotted decimal', 'https://127.0.0.1/', LOOPBACK],
  ['elsewhere in 127/8', 'https://127.254.1.2/', LOOPBACK],
  ['decimal integer', 'https://2130706433/', LOOPBACK],
  ['hex integer', 'https://0x7f000001/', LOOPBACK],
  ['octal dotted', 'https://0177.0.0.1/', LOOPBACK],
  ['hex dotted', 'https://0x7f.0x0.0x0.0x1/', LOOPBACK],
  ['two parts', 'https://127.1/', LOOPBACK],
  ['three parts', 'https://127.0.1/', LOOPBACK],
  ['mixed octal and hex', 'https://0x7f.0.00.01/', LOOPBACK],
  ['long octal', 'https://017700000001/', LOOPBACK],
  ['dotted decimal with the root dot', 'https://127.0.0.1./', LOOPBACK],
  ['integer with the root dot', 'https://2130706433./', LOOPBACK],
  ['percent-encoded digits', 'https://%31%32%37.0.0.1/', LOOPBACK],
  ['full-width digits (IDNA maps them)', 'https://１２７.０.０.１/', LOOPBACK],
  ['ideographic full stops', 'https://127。0。0。1/', LOOPBACK],
  // IPv6 loopback, unspecified, and IPv4 inside IPv6.
  ['IPv6 loopback', 'https://[::1]/', LOOPBACK],
  ['IPv6 loopback, long form', 'https://[0:0:0:0:0:0:0:1]/', LOOPBACK],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/', LOOPBACK],
  ['IPv4-mapped loopback in hex', 'https://[::ffff:7f00:1]/', LOOPBACK],
  ['IPv4-compatible loopback in hex', 'https://[::7f00:1]/', PRIVATE],
  ['IPv4-compatible loopback, dotted', 'https://[::127.0.0.1]/', PRIVATE],
  ['IPv4-compatible loopback, long form', 'https://[0:0:0:0:0:0:7f00:1]/', PRIVATE],
  ['IPv4-compatible metadata', 'https://[::a9fe:a9fe]/', PRIVATE],
  ['IPv4-compatible private', 'https://[::a00:1]/', PRIVATE],
  ['IPv4-compatible public (deprecated, never a receiver)', 'https://[::5db8:d822]/', PRIVATE],
  ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/', PRIVATE],
  ['IPv4-translated (RFC 6145)', 'https://[::ffff:0:7f00:1]/', PRIVATE],
  ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/', PRIVATE],
  ['NAT64 of a public address', 'https://[64:ff9b::5db8:d822]/', PRIVATE],
  ['local-use NAT64', 'https://[64:ff9b:1::a00:1]/', PRIVATE],
  ['6to4 of loopback', 'https://[2002:7f00:1::]/', PRIVATE],
  ['6to4 of metadata', 'https://[2002:a9fe:a9fe::1]/', PRIVATE],
  ['Teredo', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', PRIVATE],
  ['IPv4 unspecified', 'https://0.0.0.0/', PRIVATE],
  ['IPv4 unspecified as 0', 'https://0/', PRIVATE],
  ['IPv6 unspecified', 'https://[::]/', PRIVATE],
  // Private, CGNAT, link-local metadata, multicast, reserved.
  ['10/8', 'https://10.0.0.1/', PRIVATE],
  ['10/8 as an integer', 'https://167772161/', PRIVATE],
  ['172.16/12', 'https://172.31.255.254/', PRIVATE],
  ['192.168/16 in hex', 'https://0xc0.0xa8.0x1.0x1/', PRIVATE],
  ['CGNAT', 'https://100.64.0.1/', PRIVATE],
  ['Alibaba Cloud metadata (CGNAT)', 'https://100.100.100.200/', PRIVATE],
  ['AWS/GCP/Azure metadata', 'https://169.254.169.254/latest/meta-data/', PRIVATE],
  ['metadata as an integer', 'https://2852039166/', PRIVATE],
  ['metadata in octal', 'https://0251.0376.0251.0376/', PRIVATE],
  ['metadata in hex', 'https://0xa9fea9fe/', PRIVATE],
  ['AWS IPv6 metadata (unique local)', 'https://[fd00:ec2::254]/', PRIVATE],
  ['IPv6 link-local', 'https://[fe80::a9fe:a9fe]/', PRIVATE],
  ['IPv6 unique local', 'https://[fc00::1]/', PRIVATE],
  ['multicast', 'https://224.0.0.1/', PRIVATE],
  ['IPv6 multicast', 'https://[ff02::1]/', PRIVATE],
  ['broadcast', 'https://255.255.255.255/', PRIVATE],
  ['reserved 240/4', 'https://240.0.0.1/', PRIVATE],
  ['documentation 192.0.2/24', 'https://192.0.2.1/', PRIVATE],
  ['benchmarking 198.18/15', 'https://198.18.0.1/', PRIVATE],
  // Loopback and internal names, in every case and with the root dot.
  ['localhost', 'https://localhost/', LOOPBACK_NAME],
  ['localhost with the root dot', 'https://localhost./', LOOPBACK_NAME],
  ['localhost in capitals with the root dot', 'https://LOCALHOST./', LOOPBACK_NAME],
  ['localhost in mixed case', 'https://LocalHost/', LOOPBACK_NAME],
  ['localhost percent-encoded', 'https://%6c%6f%63%61%6c%68%6f%73%74/', LOOPBACK_NAME],
  ['localhost percent-encoded root dot', 'https://localhost%2e/', LOOPBACK_NAME],
  ['localhost in full-width letters (IDNA maps them)', 'https://ｌｏｃａｌｈｏｓｔ/', LOOPBACK_NAME],
  ['localhost with a circled letter (IDNA maps it)', 'https://locaⓁhost/', LOOPBACK_NAME],
  ['localhost with an ideographic root dot', 'https://localhost。/', LOOPBACK_NAME],
  ['a .localhost name', 'https://api.localhost/', LOOPBACK_NAME],
  ['a .localhost name in capitals with the root dot', 'https://API.LOCALHOST./', LOOPBACK_NAME],
  ['an IDNA .localhost name', 'https://bücher.localhost/', LOOPBACK_NAME],
  ['metadata.google.internal', 'https://metadata.google.internal/', INTERNAL_NAME],
  ['metadata.google.internal with the root dot', 'https://metadata.google.internal./', INTERNAL_NAME],
  ['metadata.google.internal in mixed case with the root dot', 'https://Metadata.Google.Internal./computeMetadata/v1/', INTERNAL_NAME],
  ['metadata.google.internal with an ideographic root dot', 'https://metadata.google.internal。/', INTERNAL_NAME],
  ['an IDNA .internal name', 'https://zahlungen-ü.internal/', INTERNAL_NAME],
  ['a .local name with the root dot', 'https://printer.local./', INTERNAL_NAME],
  ['a .home.arpa name in capitals', 'https://NAS.HOME.ARPA/', INTERNAL_NAME],
  ['a .corp name with a port', 'https://billing.corp:8443/', INTERNAL_NAME],
  ['a single label', 'https://intranet/', INTERNAL_NAME],
  ['a single label with the root dot', 'https://intranet./', INTERNAL_NAME],
  ['a single IDNA label', 'https://bücher./', INTERNAL_NAME],
  // Names that are no DNS names.
  ['a leading empty label', 'https://.localhost/', NOT_A_HOST],
  ['two root dots', 'https://localhost../', NOT_A_HOST],
  ['an empty label inside', 'https://metadata..internal/', NOT_A_HOST],
  // Ports change nothing.
  ['loopback with a port', 'https://127.0.0.1:8443/', LOOPBACK],
  ['metadata with port 80', 'https://169.254.169.254:80/', PRIVATE],
  ['localhost with the root dot and a port', 'https://localhost.:4000/', LOOPBACK_NAME],
  ['IPv4-compatible with a port', 'https://[::7f00:1]:15051/', PRIVATE],
  // Userinfo and delimiter tricks: the host is what the parser says it is.
  ['a public name as userinfo', 'https://hooks.example.com@127.0.0.1/', CREDENTIALS],
  ['user and password before metadata', 'https://user:pass@169.254.169.254/', CREDENTIALS],
  ['a fragment hiding the public name', 'https://127.0.0.1#@hooks.example.com/', LOOPBACK],
  ['a backslash hiding the public name', 'https://127.0.0.1\\@hooks.example.com/', LOOPBACK],
  ['a query hiding the public name', 'https://localhost.?@hooks.example.com/', LOOPBACK_NAME],
  // IPv6 zone ids are not part of a URL's host.
  ['a link-local zone id', 'https://[fe80::1%25eth0]/', NOT_A_URL],
  ['a loopback zone id', 'https://[::1%251]/', NOT_A_URL],
  // Length.
  ['a URL over the length limit', `https://hooks.example.com/${'a'.repeat(MAX_URL_LENGTH)}`, TOO_LONG],
  ['a 100,000-character URL', `https://hooks.example.com/${'a'.repeat(100_000)}`, TOO_LONG],
];

/** Public receivers that must stay accepted, with the host every check sees. */
const accepted: Array<[string, string, string]> = [
  ['a public name', 'https://hooks.example.com/partner?x=1', 'hooks.example.com'],
  ['a public name in capitals with the root dot', 'https://HOOKS.Example.COM./in', 'hooks.example.com'],
  ['an IDNA name', 'https://bücher.example/hook', 'xn--bcher-kva.example'],
  ['a punycode name', 'https://xn--bcher-kva.example/hook', 'xn--bcher-kva.example'],
  ['a public address with a port', 'https://93.184.216.34:8443/hook', '93.184.216.34'],
  ['a public address as an integer', 'https://1572395042/hook', '93.184.216.34'],
  ['a public IPv6 address', 'https://[2606:2800:220:1:248:1893:25c8:1946]/', '2606:2800:220:1:248:1893:25c8:1946'],
  ['an IPv4-mapped public address', 'https://[::ffff:93.184.216.34]/', '::ffff:5db8:d822'],
  ['a name that merely contains localhost', 'https://localhost.example.com/', 'localhost.example.com'],
  ['a URL of exactly the length limit', `https://hooks.example.com/${'a'.repeat(MAX_URL_LENGTH - 'https://hooks.example.com/'.length)}`, 'hooks.example.com'],
];

describe('SSRF corpus', () => {
  it('holds at least 60 forms, each once', () => {
    const urls = [...refused, ...accepted].map(([, url]) => url);
    expect(refused.length).toBeGreaterThanOrEqual(60);
    expect(new Set(urls).size).toBe(urls.length);
  });

  it.each(refused)('refuses %s (%s) when saved', async (_, url, message) => {
    await expect(policy.checkForRegistration(url)).rejects.toThrow(ReceiverRefused);
    await expect(policy.checkForRegistration(url)).rejects.toThrow(message);
  });

  it.each(refused)('refuses %s (%s) when sent', (_, url, message) => {
    expect(() => policy.checkUrl(url)).toThrow(ReceiverRefused);
    expect(() => policy.checkUrl(url)).toThrow(message);
  });

  it.each(accepted)('accepts %s (%s)', async (_, url, host) => {
    await expect(policy.checkForRegistration(url)).resolves.toBeInstanceOf(URL);
    expect(normaliseHost(policy.checkUrl(url).hostname)).toBe(host);
  });
});
