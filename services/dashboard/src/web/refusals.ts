/**
 * A service's or the key domain's 4xx answer is a refusal to show on the
 * page the member is on (with the field it is about, named as the form
 * names it); a missing resource is this organisation's 404; anything else
 * is a failure for the error page.
 */
import { ApiError } from '@partner-api/shared';
import { DashboardError } from '../domain/dashboard-error';

export function asRefusal(error: unknown, fields: Record<string, string> = {}): unknown {
  if (!(error instanceof ApiError) || error.httpStatus >= 500) return error;
  if (error.code === 'resource_missing') return new DashboardError(404, 'There is no such item in your organisation.');
  return new DashboardError(error.httpStatus, error.message, error.param ? (fields[error.param] ?? error.param) : undefined);
}
