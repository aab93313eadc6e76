/**
 * Request validation with zod: the first problem becomes
 * `parameter_missing` (the field is absent) or `parameter_invalid`, with
 * `param` naming the field as the partner wrote it (`items[0].quantity`).
 */
import { ApiError } from '@partner-api/shared';
import { type z } from '../openapi/zod';

function paramName(path: PropertyKey[]): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index ? '.' : ''}${String(part)}`)).join('');
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}

export interface ValidateOptions {
  /** Fields whose absence the spec answers with `parameter_invalid` rather than `parameter_missing` (comp `attendees`). */
  invalidWhenMissing?: (param: string) => boolean;
}

export function validate<S extends z.ZodType>(schema: S, input: unknown, options: ValidateOptions = {}): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = paramName(issue.path) || null;
  const absent = issue.path.length > 0 && valueAt(input, issue.path) === undefined;
  const missing = absent && !(param !== null && options.invalidWhenMissing?.(param));
  const message = absent ? `${param} is required.` : issue.message;
  throw new ApiError(missing ? 'parameter_missing' : 'parameter_invalid', message, param);
}
