/**
 * How a call that failed comes back to its caller: the ApiError the service
 * raised, or ServiceUnanswered when the service's answer never arrived.
 */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { fromBinary } from '@bufbuild/protobuf';
import { ApiErrorSchema, type ApiError as ApiErrorMessage } from '../gen/partnerapi/common/v1/common_pb';
import { ApiError, isApiErrorCode } from '../errors';

/** Trailing metadata key of a failed call's ApiError detail. */
export const API_ERROR_METADATA_KEY = 'partner-api-error-bin';
/** Trailing metadata key of the HTTP status an error overrides its code's own with. */
export const HTTP_STATUS_METADATA_KEY = 'partner-api-http-status';

/**
 * The details grpc-js gives a call whose HTTP/2 stream the server refused
 * (RST_STREAM REFUSED_STREAM, `subchannel-call.ts`): the one sign, at the
 * caller, that the call never reached the application.
 */
const REFUSED_STREAM_DETAILS = 'Stream refused by server';

/**
 * A call that came back without the service's answer: the service was down,
 * the connection dropped or the deadline passed. It may or may not have
 * happened, so callers whose retries are safe answer with their own code
 * (a checkout answers `hold_failed`); anyone else sees `internal_error`.
 */
export class ServiceUnanswered extends ApiError {
  constructor(
    readonly grpcCode: GrpcStatus,
    /** grpc-js's account of what happened to the call (kept for logs; never shown to partners). */
    readonly grpcDetails = '',
  ) {
    super('internal_error', 'An internal error occurred.');
  }

  /**
   * The server refused the call's stream before any handler saw it (a
   * connection it had begun to close: a drain, or a connection past its
   * maximum age), and grpc-js's one transparent retry was refused too.
   * The call did not happen, so sending it again is safe for any method.
   */
  get refused(): boolean {
    return this.grpcCode === GrpcStatus.UNAVAILABLE && this.grpcDetails === REFUSED_STREAM_DETAILS;
  }
}

/** The ApiError a service sent as a message (alone in trailing metadata, or in a batch's outcome). */
export function apiErrorFromMessage(detail: ApiErrorMessage, httpStatus: number | undefined): ApiError | undefined {
  return isApiErrorCode(detail.code) ? new ApiError(detail.code, detail.message, detail.param ?? null, httpStatus) : undefined;
}

/** Rebuilds the service's ApiError from a failed call. */
export function apiErrorFromGrpc(error: ServiceError): ApiError {
  const raw = error.metadata?.get(API_ERROR_METADATA_KEY)[0];
  if (raw instanceof Buffer) {
    const override = error.metadata.get(HTTP_STATUS_METADATA_KEY)[0];
    const apiError = apiErrorFromMessage(fromBinary(ApiErrorSchema, raw), typeof override === 'string' ? Number(override) : undefined);
    if (apiError) return apiError;
  }
  return new ServiceUnanswered(error.code, error.details);
}
