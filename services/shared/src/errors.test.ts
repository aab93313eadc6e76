import { API_ERRORS, ApiError, grpcStatusForHttp } from './errors';
import { status } from '@grpc/grpc-js';

// Every row of the spec's error table: code → HTTP status → error.type.
const SPEC_ERROR_TABLE: Array<[string, number, string]> = [
  ['missing_api_key', 401, 'authentication_error'],
  ['invalid_api_key', 401, 'authentication_error'],
  ['api_key_revoked', 401, 'authentication_error'],
  ['api_key_expired', 401, 'authentication_error'],
  ['insufficient_scope', 403, 'permission_error'],
  ['ip_not_allowed', 403, 'permission_error'],
  ['browser_request_blocked', 403, 'permission_error'],
  ['resource_missing', 404, 'not_found_error'],
  ['route_not_found', 404, 'not_found_error'],
  ['parameter_missing', 400, 'invalid_request_error'],
  ['parameter_invalid', 400, 'invalid_request_error'],
  ['event_not_on_sale', 422, 'invalid_request_error'],
  ['ticket_type_unavailable', 422, 'invalid_request_error'],
  ['exceeds_availability', 422, 'invalid_request_error'],
  ['exceeds_max_per_order', 422, 'invalid_request_error'],
  ['seat_selection_required', 422, 'invalid_request_error'],
  ['ticket_void', 422, 'invalid_request_error'],
  ['idempotency_key_reused', 422, 'invalid_request_error'],
  ['idempotency_request_in_progress', 409, 'conflict_error'],
  ['ticket_wrong_event', 409, 'conflict_error'],
  ['rate_limited', 429, 'rate_limit_error'],
  ['hold_failed', 500, 'api_error'],
  ['test_event_failed', 500, 'api_error'],
];

describe('the error table', () => {
  it.each(SPEC_ERROR_TABLE)('maps %s to HTTP %d and type %s', (code, httpStatus, type) => {
    const error = new ApiError(code as keyof typeof API_ERRORS, 'message');
    expect(error.httpStatus).toBe(httpStatus);
    expect(error.type).toBe(type);
  });

  it('has no codes beyond the spec except the generic internal_error and the beta replay’s endpoint_disabled', () => {
    const extra = Object.keys(API_ERRORS).filter((code) => !SPEC_ERROR_TABLE.some(([spec]) => spec === code));
    expect(extra).toEqual(['endpoint_disabled', 'internal_error']);
    expect(new ApiError('endpoint_disabled', 'paused')).toMatchObject({ httpStatus: 409, type: 'conflict_error' });
  });

  it('lets a code carry a different status where the spec says so (422 parameter_invalid)', () => {
    const error = new ApiError('parameter_invalid', 'Below minimum.', 'items[0].quantity', 422);
    expect(error.httpStatus).toBe(422);
    expect(error.type).toBe('invalid_request_error');
  });

  it('chooses a gRPC status for each HTTP status', () => {
    expect(grpcStatusForHttp(404)).toBe(status.NOT_FOUND);
    expect(grpcStatusForHttp(422)).toBe(status.FAILED_PRECONDITION);
    expect(grpcStatusForHttp(409)).toBe(status.ABORTED);
    expect(grpcStatusForHttp(500)).toBe(status.INTERNAL);
  });
});
