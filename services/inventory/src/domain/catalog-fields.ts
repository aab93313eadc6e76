/**
 * How the operator's catalog fields are read: text as partnerctl sends it,
 * checked and turned into column values, with the field to fix named when
 * one is wrong.
 */
import { ApiError, parseCents } from '@partner-api/shared';

export const invalid = (param: string, message: string) => new ApiError('parameter_invalid', message, param);
export const required = (param: string) => new ApiError('parameter_missing', `${param} is required.`, param);

/** Empty text clears a nullable field; anything else is kept as given. */
export const nullable = (value: string) => (value === '' ? null : value);

export function timestamp(param: string, value: string): Date | null {
  if (value === '') return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(param, `${param} must be an ISO-8601 time.`);
  return date;
}

export function cents(param: string, value: string): number {
  try {
    return parseCents(value);
  } catch {
    throw invalid(param, `${param} must be a decimal amount like "49.90".`);
  }
}

/** Column ← field, for the event fields an operator may change, in API names. */
export const EVENT_COLUMNS: Record<string, { column: string; read: (value: string) => unknown }> = {
  slug: { column: 'slug', read: (value) => value },
  title: { column: 'title', read: (value) => value },
  summary: { column: 'summary', read: nullable },
  description: { column: 'description', read: nullable },
  starts_at: { column: 'starts_at', read: (value) => timestamp('starts_at', value) },
  ends_at: { column: 'ends_at', read: (value) => timestamp('ends_at', value) },
  timezone: { column: 'timezone', read: timezone },
  doors: { column: 'doors', read: nullable },
  image_url: { column: 'image_url', read: nullable },
  on_sale_at: { column: 'on_sale_at', read: (value) => timestamp('on_sale_at', value) },
};

/** An IANA zone Node knows; anything else is refused before it reaches the table. */
export function timezone(value: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value;
  } catch {
    throw invalid('timezone', 'timezone must be an IANA time zone such as Australia/Sydney.');
  }
}

export const sameValue = (a: unknown, b: unknown) =>
  a instanceof Date || b instanceof Date
    ? (a as Date | null)?.getTime() === (b as Date | null)?.getTime()
    : JSON.stringify(a) === JSON.stringify(b);

/** An API field name (`starts_at`) as the protos name it (`startsAt`). */
export function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
