/**
 * Text a request may carry into the services, checked once at the edge for
 * bodies and queries alike: no NUL character (PostgreSQL cannot store one),
 * no lone UTF-16 surrogate (it cannot be written as UTF-8), and bodies
 * nested at most 32 deep (no request of the API nests deeper than 4, and
 * deeper ones would exhaust the stack of anything that walks them).
 * Refusals are `400 parameter_invalid` naming the field (D75, D76).
 */
import { ApiError } from '@partner-api/shared';

export const MAX_BODY_DEPTH = 32;

const NUL = '\u0000';

const storable = (text: string) => !text.includes(NUL) && text.isWellFormed();

function refuse(param: string | null): never {
  throw new ApiError(
    'parameter_invalid',
    `${param ?? 'The request'} contains a character that cannot be stored (a NUL character or a lone UTF-16 surrogate).`,
    param,
  );
}

const childName = (parent: string, key: string | number) => (typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key);

/** Walks the parsed body without recursion, so no shape of input can overflow the stack. */
export function assertStorableBody(body: unknown): void {
  const pending: Array<{ value: unknown; name: string; depth: number }> = [{ value: body, name: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, name, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) refuse(name || null);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw new ApiError('parameter_invalid', `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`, null);
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, name: childName(name, index), depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (!storable(key)) refuse(name || null);
      pending.push({ value: item, name: childName(name, key), depth: depth + 1 });
    }
  }
}

/** Query values as Express 5 parses them by default (node:querystring): strings or lists of strings. */
export function assertStorableQuery(query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (!storable(name)) refuse(null);
    const texts = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === 'string' && !storable(text))) refuse(name);
  }
}
