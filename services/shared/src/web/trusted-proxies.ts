/**
 * TRUST_PROXY: the proxies (addresses or CIDR ranges, comma-separated) whose
 * `X-Forwarded-For` names the caller. By default none: the caller is the
 * socket's peer, and a client cannot choose the address that allowlists,
 * per-address limits and logs see by sending the header itself (D381).
 * Express's names (`loopback`, `uniquelocal`), `true` and hop counts are
 * refused: trust must name the proxies it means.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/** `203.0.113.7` → `203.0.113.7/32`; a range keeps its prefix; anything else is null. */
function normalisedRange(entry: string): string | null {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return `${address.toString()}/${bits}`;
    }
    // Dotted decimal only: ipaddr.js also reads `127.1` or hex octets, which no one means here.
    if (ipaddr.IPv4.isValid(entry) && !ipaddr.IPv4.isValidFourPartDecimal(entry)) return null;
    const address = ipaddr.parse(entry);
    return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}

/** The setting as Express's `trust proxy` takes it: a list of ranges (empty trusts no proxy). */
export const trustedProxiesEnv = z
  .string()
  .default('')
  .transform((value, context) => {
    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    const ranges: string[] = [];
    for (const entry of entries) {
      const range = normalisedRange(entry);
      if (range) ranges.push(range);
      else context.addIssue({ code: 'custom', message: `"${entry}" is not an IP address or CIDR range (name the proxies' addresses, e.g. 10.0.0.0/8)` });
    }
    return ranges;
  });
