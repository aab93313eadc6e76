/** IP allowlists: single addresses and CIDR ranges, IPv4 and IPv6, parsed with ipaddr.js. */
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses one entry; throws on anything that is not an address or a range. */
export function parseAllowlistEntry(entry: string): Range {
  const trimmed = entry.trim();
  if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
  const address = ipaddr.process(trimmed);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Splits the dashboard's comma-separated form and normalises each entry. */
export function parseAllowlist(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address, bits] = parseAllowlistEntry(entry);
      return `${address.toString()}/${bits}`;
    });
}

/** An empty list allows any address. IPv4-mapped IPv6 callers are compared as IPv4. */
export function isAllowed(allowlist: readonly string[], callerIp: string): boolean {
  if (allowlist.length === 0) return true;
  if (!ipaddr.isValid(callerIp)) return false;
  const caller = ipaddr.process(callerIp);
  return allowlist.some((entry) => {
    const [range, bits] = parseAllowlistEntry(entry);
    return range.kind() === caller.kind() && caller.match(range, bits);
  });
}
