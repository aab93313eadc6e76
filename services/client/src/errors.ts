/**
 * Errors the client throws: the API's own (a non-2xx answer, with the
 * envelope's `code`, `type`, `param` and request id), and the failure to
 * get any answer at all.
 */
import type { components } from './gen/api';
import { serverRequestedDelayMs } from './retry-policy';

type ErrorBody = components['schemas']['Error']['error'];
/** Every `error.code` the API documents, from the OpenAPI document. */
export type ErrorCode = ErrorBody['code'];
export type ErrorType = ErrorBody['type'];

export class PartnerApiError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'PartnerApiError';
  readonly status: number;
  readonly code: C;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly requestId: string | null;
  readonly docUrl: string | null;
  /** The response's headers (`Retry-After`, `RateLimit-*`, `Request-Id`). */
  readonly headers: Headers;
  /**
   * The wait the server asked for, in ms when the answer was made: `Retry-After` (seconds or an
   * HTTP-date), else `RateLimit-Reset` when `RateLimit-Remaining` is 0; null when it named none.
   * A `429` that outlasted the client's retries carries it, for the caller to schedule around.
   */
  readonly retryAfterMs: number | null;

  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(body.message);
    this.status = status;
    this.code = body.code as C;
    this.type = body.type;
    this.param = body.param;
    this.requestId = body.request_id ?? headers.get('request-id');
    this.docUrl = body.doc_url ?? null;
    this.headers = headers;
    this.retryAfterMs = serverRequestedDelayMs(headers) ?? null;
  }

  /** True when the API answered `error`, narrowed to the codes given: `if (PartnerApiError.is(err, 'exceeds_availability'))`. */
  static is<C extends ErrorCode>(error: unknown, ...codes: C[]): error is PartnerApiError<C> {
    return error instanceof PartnerApiError && (codes.length === 0 || (codes as string[]).includes(error.code));
  }

  /** Builds the error from any non-2xx answer; one that is not the API's envelope (a proxy's page) gets `api_error`/`internal_error`. */
  static fromResponse(status: number, body: unknown, headers: Headers): PartnerApiError {
    const envelope = (body as { error?: Partial<ErrorBody> } | null)?.error;
    if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
      return new PartnerApiError(status, { param: null, request_id: '', doc_url: '', type: 'api_error', ...envelope } as ErrorBody, headers);
    }
    const message = `HTTP ${status} without an API error body`;
    return new PartnerApiError(status, { type: 'api_error', code: 'internal_error', message, param: null, request_id: headers.get('request-id') ?? '', doc_url: '' } as ErrorBody, headers);
  }
}

/** No answer: the connection failed or timed out on every attempt. */
export class PartnerApiConnectionError extends Error {
  override readonly name = 'PartnerApiConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}
