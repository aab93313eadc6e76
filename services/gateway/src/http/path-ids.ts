/**
 * The `{id}` of a path, in one place. An id that cannot name anything (a
 * 65-character uuid, `%C2%84`, a 201-character slug, a NUL) is simply not
 * found: `404 resource_missing` with the same message the owning service
 * gives for an unknown id, and no downstream call (docs/decisions.md D74).
 */
import { notFound, UUID_PATTERN, type ApiError } from '@partner-api/shared';
import { z } from '../openapi/zod';

export interface PathId {
  /** Documents the parameter in the OpenAPI document. */
  readonly schema: z.ZodString;
  /** The id as the services take it, or `404 resource_missing`. */
  parse(raw: unknown): string;
  /** The answer for an id that cannot exist, e.g. one whose escapes do not decode. */
  missing(): ApiError;
}

const POSITIVE_INTEGER = /^[1-9][0-9]{0,17}$/;
// Any printable text without control characters; slugs are free text in the catalog.
const EVENT_REF = /^[^\p{Cc}]{1,200}$/u;

function pathId(resource: string, pattern: RegExp, schema: z.ZodString): PathId {
  const missing = () => notFound(resource);
  return {
    schema,
    missing,
    parse(raw) {
      if (typeof raw !== 'string' || !pattern.test(raw) || !raw.isWellFormed()) throw missing();
      return raw;
    },
  };
}

/** A positive integer id (venues, tickets, webhook endpoints). */
export const integerId = (resource: string, description: string, example: string): PathId =>
  pathId(resource, POSITIVE_INTEGER, z.string().regex(POSITIVE_INTEGER).openapi({ description, example }));

/** A uuid (orders, checkout sessions). */
export const uuidId = (resource: string, description: string): PathId =>
  pathId(resource, UUID_PATTERN, z.string().uuid().openapi({ description }));

/** An event by id or slug. */
export const eventRef: PathId = pathId(
  'event',
  EVENT_REF,
  z.string().min(1).max(200).openapi({ description: 'Event id (integer) or slug.', example: 'midnight-oil-reunion' }),
);
