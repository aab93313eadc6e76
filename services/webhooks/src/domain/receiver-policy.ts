/**
 * Where webhooks may go. Receivers must be HTTPS on public addresses: a
 * partner must not be able to make the platform POST into its own network
 * (cloud metadata, databases, admin ports). Only addresses that ipaddr.js
 * ranks as global unicast pass; private, loopback, link-local, CGNAT,
 * multicast, reserved and the IPv6 forms that embed an IPv4 address (6to4,
 * NAT64, Teredo) are refused. The check runs when an endpoint is saved and
 * again inside the socket's own DNS lookup at every delivery, so the
 * address that was checked is the one connected to (no DNS rebinding).
 * Every check sees the host in one normal form (normaliseHost), so no
 * spelling of a name or address (trailing root dot, case, IDNA, octal or
 * hex IPv4, IPv6 compression) slips past a rule written for another.
 *
 * Local development may allow loopback receivers (and plain http to them)
 * with WEBHOOK_ALLOW_LOOPBACK_RECEIVERS; nothing else private, ever.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export class ReceiverRefused extends Error {
  override readonly name = 'ReceiverRefused';
}

export type AddressKind = 'public' | 'loopback' | 'internal';

// IPv4-compatible IPv6 (::a.b.c.d), deprecated by RFC 4291 §2.5.5.1; ipaddr.js ranks it unicast.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Public, loopback, or anything else (internal). IPv4-mapped IPv6 counts as
 * its IPv4 address; an IPv4-compatible one (other than :: and ::1) is
 * internal whatever it embeds: nothing legitimate is reached that way.
 */
export function addressKind(address: string): AddressKind {
  // Read as the URL parser reads it: ipaddr.js alone takes `::127.0.0.1` for IPv4-mapped. A zone id does not change the class.
  let canonical: string;
  try {
    canonical = normaliseHost(address.split('%')[0]!);
  } catch {
    return 'internal';
  }
  if (!ipaddr.isValid(canonical)) return 'internal';
  const parsed = ipaddr.process(canonical);
  const range = parsed.range();
  if (range === 'loopback') return 'loopback';
  if (range !== 'unicast') return 'internal';
  if (parsed.kind() === 'ipv6' && parsed.match(IPV4_COMPATIBLE)) return 'internal';
  return 'public';
}

/** The longest receiver URL (the spec's limit for a webhook endpoint's url). */
export const MAX_URL_LENGTH = 2_048;

// Names that only mean something inside a network (RFC 6761, 6762, 8375, and common practice).
const INTERNAL_SUFFIXES = ['.local', '.internal', '.localdomain', '.home.arpa', '.intranet', '.corp', '.lan'];
const LOOPBACK_NAMES = (host: string) => host === 'localhost' || host.endsWith('.localhost');

// Characters that would end a host inside a URL: a bare host holding one is not a host.
const URL_DELIMITERS = /[/\\?#@\s]/;

/**
 * A host as every check sees it: the WHATWG URL parser's own form (lower
 * case, percent-decoded, IDNA mapped to punycode, IPv4 in any decimal,
 * octal or hex spelling written as a dotted quad, IPv6 compressed), without
 * IPv6 brackets and without the DNS root's trailing dot (`localhost.` is
 * `localhost`). Takes a URL's hostname or a bare host (as a socket's lookup
 * gets it); throws ReceiverRefused for anything that is not a host.
 */
export function normaliseHost(host: string): string {
  const bare = stripBrackets(host);
  if (bare === '' || URL_DELIMITERS.test(bare)) throw new ReceiverRefused(`${JSON.stringify(host)} is not a host name.`);
  let parsed: string;
  try {
    parsed = stripBrackets(new URL(`https://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname);
  } catch {
    throw new ReceiverRefused(`${JSON.stringify(host)} is not a host name.`);
  }
  if (ipaddr.isValid(parsed)) return parsed;
  const name = parsed.endsWith('.') ? parsed.slice(0, -1) : parsed;
  // An empty label (`a..b`, `.localhost`, `localhost..`) is no DNS name; resolvers disagree on what it means.
  if (name.split('.').includes('')) throw new ReceiverRefused(`${JSON.stringify(host)} is not a host name.`);
  return name;
}

/** How long saving an endpoint waits for its host name to resolve. */
const REGISTRATION_LOOKUP_MS = 2_000;

const stripBrackets = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Every address of a host name (empty when it does not resolve). */
export type ResolveAll = (host: string) => Promise<string[]>;

const resolveWithDns: ResolveAll = (host) =>
  dns.promises.lookup(host, { all: true, verbatim: true }).then(
    (addresses) => addresses.map(({ address }) => address),
    () => [],
  );

export class ReceiverPolicy {
  constructor(
    private readonly allowLoopback: boolean,
    private readonly resolveAll: ResolveAll = resolveWithDns,
  ) {}

  /**
   * The URL's own rules, no DNS: https (http only to loopback when allowed),
   * no credentials, and a host that is not internal by name or by address.
   */
  checkUrl(raw: string): URL {
    return this.checkedUrl(raw).url;
  }

  /** checkUrl, with the URL's normalised host. */
  private checkedUrl(raw: string): { url: URL; host: string } {
    if (raw.length > MAX_URL_LENGTH) throw new ReceiverRefused(`url is at most ${MAX_URL_LENGTH} characters.`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ReceiverRefused('url must be an absolute https:// address.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ReceiverRefused('url must use https.');
    const host = normaliseHost(url.hostname);
    const loopbackHost = LOOPBACK_NAMES(host) || (ipaddr.isValid(host) && addressKind(host) === 'loopback');
    const plainHttpAllowed = this.allowLoopback && loopbackHost && url.protocol === 'http:';
    if (url.protocol !== 'https:' && !plainHttpAllowed) throw new ReceiverRefused('url must use https.');
    if (url.username || url.password) throw new ReceiverRefused('url must not contain a user name or password.');
    this.checkHost(host);
    return { url, host };
  }

  /** The host's own rules, no DNS: an address must be allowed, a name must not be internal. `host` is normalised. */
  private checkHost(host: string): void {
    if (ipaddr.isValid(host)) return this.checkAddress(host);
    if (LOOPBACK_NAMES(host)) {
      if (!this.allowLoopback) throw new ReceiverRefused(`url's host ${host} is a loopback name; receivers must be reachable on the internet.`);
      return;
    }
    if (!host.includes('.') || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
      throw new ReceiverRefused(`url's host ${host} is an internal name; receivers must be reachable on the internet.`);
    }
  }

  /** Throws unless `address` may receive deliveries. */
  checkAddress(address: string): void {
    const kind = addressKind(address);
    if (kind === 'public' || (kind === 'loopback' && this.allowLoopback)) return;
    throw new ReceiverRefused(`${address} is a ${kind === 'loopback' ? 'loopback' : 'private or internal'} address; receivers must be reachable on the internet.`);
  }

  /**
   * When an endpoint is saved: the URL's rules, then its host's addresses
   * if it resolves now. A name that does not resolve yet is accepted (DNS
   * may not be live at registration); every delivery checks again.
   */
  async checkForRegistration(raw: string): Promise<URL> {
    const { url, host } = this.checkedUrl(raw);
    if (ipaddr.isValid(host)) return url;
    const addresses = await Promise.race([
      this.resolveAll(host),
      new Promise<string[]>((resolve) => setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS).unref()),
    ]);
    for (const address of addresses) this.checkAddress(address);
    return url;
  }

  /**
   * A `lookup` for sockets (net/tls `connect` options): resolves the name,
   * refuses the host if any of its addresses is not allowed, and hands the
   * socket only checked addresses. Node calls it with `all: true` when it
   * races address families, and without it otherwise. The host's own rules
   * run first, on the normalised name, which is also the name resolved.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    let host: string;
    try {
      host = normaliseHost(hostname);
      this.checkHost(host);
    } catch (refusal) {
      return process.nextTick(() => callback(refusal as NodeJS.ErrnoException, '', 0));
    }
    dns.lookup(host, { all: true, verbatim: true, family: options.family }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      try {
        if (addresses.length === 0) throw new ReceiverRefused(`${hostname} has no addresses.`);
        for (const { address } of addresses) this.checkAddress(address);
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, all: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
