/**
 * Why a delivery attempt failed, as the delivery log shows it: one word a
 * partner can branch on, taken from what the receiver client saw. A thrown
 * error is read by its kind and code (undici wraps the socket's error in
 * `cause`); an answer by its status class.
 */
import { ReceiverRefused } from './receiver-policy';

export const FAILURE_REASONS = ['timeout', 'connection_refused', 'connection_error', 'tls', 'address_refused', 'status_3xx', 'status_4xx', 'status_5xx'] as const;

export type FailureReason = (typeof FAILURE_REASONS)[number];

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** The reason for a receiver's non-2xx answer; null for a 2xx. */
export function failureReasonForStatus(status: number): FailureReason | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 500) return 'status_5xx';
  if (status >= 400) return 'status_4xx';
  // 3xx (redirects are not followed) and the odd 1xx a broken receiver sends.
  return 'status_3xx';
}

/** The reason for a POST that got no answer. */
export function failureReasonForError(error: unknown): FailureReason {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (error instanceof ReceiverRefused || cause instanceof ReceiverRefused) return 'address_refused';
  const name = (error as { name?: string } | null)?.name;
  const code = errorCode(error) ?? errorCode(cause);
  if (name === 'TimeoutError' || name === 'AbortError' || (code !== undefined && TIMEOUT_CODES.has(code))) return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code !== undefined && isTlsCode(code)) return 'tls';
  // Name resolution, a reset or closed socket, anything else on the network.
  return 'connection_error';
}

/** Node's TLS errors and OpenSSL's certificate verification codes (UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, …). */
const isTlsCode = (code: string): boolean =>
  code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.startsWith('UNABLE_TO_') || code.includes('CERT') || code.includes('SELF_SIGNED');

const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};
