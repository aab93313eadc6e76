/**
 * Standard Webhooks headers (https://www.standardwebhooks.com), sent beside
 * the spec's `Service-*` ones so a partner can verify with any Standard
 * Webhooks library: `webhook-id` (the event id, stable across retries),
 * `webhook-timestamp` (the attempt's Unix seconds, the same `t` as
 * `Service-Signature`) and `webhook-signature`, space-separated `v1,<base64>`
 * HMAC-SHA256 values over `<id>.<timestamp>.<raw body>`, one per signing
 * secret (new first during a rotation's overlap).
 *
 * The standard keys the HMAC with the bytes a `whsec_<base64>` secret
 * encodes. Ours are `whsec_` + 32 base62 characters, and base62 is a subset
 * of the base64 alphabet with 32 a multiple of 4, so the same string is a
 * valid base64 body of 24 bytes: we sign with those bytes, and the official
 * libraries verify with the secret exactly as the partner was shown it
 * (decisions D260–D262). The `Service-Signature` keeps keying with the whole
 * string, as the spec says.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/** The HMAC key a Standard Webhooks library derives from a `whsec_` secret. */
export function standardKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new Error('a webhook secret must not be empty');
  return key;
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string | Buffer): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** The three headers, added to `headers` when given (a request's own object) rather than to a new one. */
export function standardWebhookHeaders(id: string, timestamp: number, body: string | Buffer, secrets: readonly string[], headers: Record<string, string> = {}): Record<string, string> {
  headers['webhook-id'] = id;
  headers['webhook-timestamp'] = String(timestamp);
  headers['webhook-signature'] = secrets.map((secret) => standardSignature(secret, id, timestamp, body)).join(' ');
  return headers;
}
