/**
 * `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256,
 * keyed with the whole endpoint secret (`whsec_…`), over `<t>.<raw body>`.
 * During a rotation's 24-hour overlap the old secret signs too, so the
 * header carries the new secret's `v1` first and the old one's after it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../events';

/** How far a receiver lets `t` differ from its clock (the spec: 300 seconds). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export const newEndpointSecret = (): string => `whsec_${randomBase62(32)}`;

/** `whsec_…` and the secret's last four characters. */
export const secretHint = (secret: string): string => `whsec_…${secret.slice(-4)}`;

const hmacHex = (secret: string, timestamp: number, body: string | Buffer): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

/** The header value for `body`, signed at `timestamp` by every secret given (current first). */
export function signatureHeader(secrets: readonly string[], body: string | Buffer, timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does (and our tests do): accept when any `v1` matches the
 * secret (constant-time) and `t` is within the tolerance of its clock.
 */
export function verifySignature(header: string, body: string | Buffer, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = header.split(',').map((part) => part.split('=', 2) as [string, string | undefined]);
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  return parts.some(([name, value]) => {
    if (name !== 'v1' || value === undefined || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, 'hex'), expected);
  });
}
