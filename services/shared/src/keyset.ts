/**
 * Keyset positions travel as JSON arrays of strings inside the gateway's
 * sealed cursors. The gateway already authenticated them; this still checks
 * their shape, because a service trusts no input.
 */
import { ApiError } from './errors';

export function encodePosition(position: string[] | undefined): string {
  return position ? JSON.stringify(position) : '';
}

export function decodePosition(after: string, length: number): string[] | undefined {
  if (!after) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(after);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== length || !parsed.every((part) => typeof part === 'string')) {
    throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing.', 'cursor');
  }
  return parsed as string[];
}
