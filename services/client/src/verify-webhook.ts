/**
 * Verifies a delivery's `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`
 * header (the spec's signature section): HMAC-SHA256 keyed with the whole
 * `whsec_…` secret over `<t>.<raw body>`. Any `v1` may match any of the
 * secrets given (a rotation's overlap sends two), compared in constant time;
 * a `t` further than the tolerance from the receiver's clock is refused, so a
 * captured delivery cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './webhook-events';

/** The spec's tolerance for `t`: 300 seconds either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationFailure = 'malformed_header' | 'stale_timestamp' | 'no_matching_signature' | 'malformed_body';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyOptions {
  /** Seconds `t` may differ from now. Default 300. */
  tolerance?: number;
  /** The receiver's clock in Unix seconds (for tests). Default now. */
  now?: number;
}

interface ParsedHeader {
  timestamp: number;
  signatures: Buffer[];
}

function parseHeader(header: string): ParsedHeader {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (separator < 0) throw new WebhookVerificationError('malformed_header', `signature header part "${part}" has no "="`);
    if (name === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) throw new WebhookVerificationError('malformed_header', 'signature header needs exactly one numeric t');
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) throw new WebhookVerificationError('malformed_header', 'a v1 value is not 64 hex characters');
      signatures.push(Buffer.from(value, 'hex'));
    }
    // Other schemes are skipped: a later signature version must not break today's receivers.
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_header', 'signature header has no t');
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_header', 'signature header has no v1');
  return { timestamp, signatures };
}

/**
 * Returns the event when `header` (the `Service-Signature` value) signs
 * `rawBody` (the bytes exactly as received, before any JSON parsing) with one
 * of `secrets`; throws `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(rawBody: string | Buffer, header: string | string[] | undefined, secrets: string | readonly string[], options: VerifyOptions = {}): WebhookEvent {
  if (typeof header !== 'string' || header.length === 0) throw new WebhookVerificationError('malformed_header', 'exactly one Service-Signature header is needed');
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0 || keys.some((secret) => typeof secret !== 'string' || secret.length === 0)) throw new TypeError('at least one non-empty webhook secret is needed');
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);

  const { timestamp, signatures } = parseHeader(header);
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError('stale_timestamp', `signature timestamp is more than ${tolerance} s from now`);
  const matches = keys.some((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
    return signatures.some((signature) => timingSafeEqual(signature, expected));
  });
  if (!matches) throw new WebhookVerificationError('no_matching_signature', 'no v1 signature matches the secrets given');
  try {
    return JSON.parse(rawBody.toString()) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed_body', 'the signed body is not JSON');
  }
}
