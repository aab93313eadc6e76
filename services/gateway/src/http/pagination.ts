/**
 * Pagination for list endpoints: `limit` 1–100 (default 25) and opaque
 * cursors. A service pages by an internal keyset position; the gateway seals
 * it with AES-256-GCM, bound to the organisation, the endpoint and the
 * filters of the listing. Clients can neither read nor forge one, and a
 * cursor from another listing is refused as `400 parameter_invalid`.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ApiError, type gen } from '@partner-api/shared';
import type { MessageShape } from '@bufbuild/protobuf';
import { z } from '../openapi/zod';

const LIMIT_RULE = 'limit must be an integer from 1 to 100.';

export const PaginationQuery = z.object({
  // Digits only: `0x10`, `1e2`, `+5` and ` 5 ` are not integers as written (D77).
  limit: z
    .string({ error: LIMIT_RULE })
    .regex(/^[0-9]{1,3}$/, { error: LIMIT_RULE })
    .transform(Number)
    .pipe(z.number().int().min(1, { error: LIMIT_RULE }).max(100, { error: LIMIT_RULE }))
    .default(25)
    .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 25, description: 'Page size, 1 to 100.', example: 25 }),
  cursor: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .openapi({ description: 'Opaque `next_cursor` from the previous page.' }),
});

export class CursorSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`partner-api cursor v1:${secret}`).digest();
  }

  /** `scope` names the listing: endpoint, organisation and filters. */
  seal(position: string, scope: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(scope));
    const body = Buffer.concat([cipher.update(position, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  unseal(cursor: string, scope: string): string {
    try {
      const raw = Buffer.from(cursor, 'base64url');
      if (raw.length < 29) throw new Error('short');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(scope));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new ApiError('parameter_invalid', 'The cursor is not valid for this listing. Pass back a next_cursor unchanged.', 'cursor');
    }
  }
}

type PageInfo = MessageShape<typeof gen.common.PageInfoSchema>;

/** A listing's page request and the list envelope built from its answer. */
export class Pager {
  constructor(
    private readonly sealer: CursorSealer,
    private readonly scope: string,
  ) {}

  page(query: { limit: number; cursor?: string | undefined }): { limit: number; after: string } {
    return { limit: query.limit, after: query.cursor ? this.sealer.unseal(query.cursor, this.scope) : '' };
  }

  /** The envelope as JSON (UTF-8) around `dataJson`, a JSON array already written: the same bytes JSON.stringify(envelope(data)) gives. */
  envelopeJson(dataJson: Uint8Array, pageInfo: PageInfo | undefined): Buffer {
    const { object, data: _data, ...rest } = this.envelope([], pageInfo);
    return Buffer.concat([Buffer.from(`{"object":${JSON.stringify(object)},"data":`), dataJson, Buffer.from(`,${JSON.stringify(rest).slice(1)}`)]);
  }

  envelope<T>(data: T[], pageInfo: PageInfo | undefined) {
    const hasMore = Boolean(pageInfo?.hasMore && pageInfo.nextAfter);
    return {
      object: 'list' as const,
      data,
      has_more: hasMore,
      next_cursor: hasMore ? this.sealer.seal(pageInfo!.nextAfter, this.scope) : null,
    };
  }
}

/** One scope string per listing: the same filters give the same scope. */
export function listingScope(endpoint: string, organisationId: number, filters: Record<string, unknown>): string {
  const stable = Object.keys(filters)
    .sort()
    .map((key) => `${key}=${filters[key] ?? ''}`)
    .join('&');
  return `${endpoint}|org=${organisationId}|${stable}`;
}
