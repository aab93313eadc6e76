/**
 * Where webhooks may go. Receivers must be HTTPS on public addresses: a
 * partner must not be able to make the platform POST into its own network
 * (cloud metadata, databases, admin ports). Only addresses that ipaddr.js
 * ranks as global unicast pass; private, loopback, link-local, CGNAT,
 * multicast, reserved and the IPv6 forms that embed an IPv4 address (6to4,
 * NAT64, Teredo) are refused. The check runs when an endpoint is saved and
 * again inside the socket's own DNS lookup at every delivery, so the
 * address that was checked is the one connected to (no DNS rebinding).
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

/** Public, loopback, or anything else (internal). IPv4-mapped IPv6 counts as its IPv4 address. */
export function addressKind(address: string): AddressKind {
  if (!ipaddr.isValid(address)) return 'internal';
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return 'public';
  return range === 'loopback' ? 'loopback' : 'internal';
}

// Names that only mean something inside a network (RFC 6761, 6762, 8375, and common practice).
const INTERNAL_SUFFIXES = ['.local', '.internal', '.localdomain', '.home.arpa', '.intranet', '.corp', '.lan'];
const LOOPBACK_NAMES = (host: string) => host === 'localhost' || host.endsWith('.localhost');

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
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ReceiverRefused('url must be an absolute https:// address.');
    }
    const host = stripBrackets(url.hostname.toLowerCase());
    const loopbackHost = LOOPBACK_NAMES(host) || (ipaddr.isValid(host) && addressKind(host) === 'loopback');
    const plainHttpAllowed = this.allowLoopback && loopbackHost && url.protocol === 'http:';
    if (url.protocol !== 'https:' && !plainHttpAllowed) throw new ReceiverRefused('url must use https.');
    if (url.username || url.password) throw new ReceiverRefused('url must not contain a user name or password.');
    if (ipaddr.isValid(host)) {
      this.checkAddress(host);
      return url;
    }
    if (LOOPBACK_NAMES(host)) {
      if (!this.allowLoopback) throw new ReceiverRefused(`url's host ${host} is a loopback name; receivers must be reachable on the internet.`);
      return url;
    }
    if (!host.includes('.') || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
      throw new ReceiverRefused(`url's host ${host} is an internal name; receivers must be reachable on the internet.`);
    }
    return url;
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
    const url = this.checkUrl(raw);
    const host = stripBrackets(url.hostname);
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
   * races address families, and without it otherwise.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true, family: options.family }, (error, addresses) => {
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
