/**
 * List operations: the spec's list envelope, and for paged lists the limit,
 * the sealed cursor (bound to the listing's path, organisation and filters)
 * and `next_cursor`, owned here once instead of by every list handler.
 */
import type { MessageShape } from '@bufbuild/protobuf';
import type { gen } from '@partner-api/shared';
import type { z } from '../openapi/zod';
import { defineOperation, ok, type Operation, type OperationInput, type OperationSpec } from './operation';
import { listingScope, Pager, type PaginationQuery } from './pagination';

type PageInfo = MessageShape<typeof gen.common.PageInfoSchema>;
type PageRequest = { limit: number; after: string };
type PagedQuery = z.ZodObject<(typeof PaginationQuery)['shape']>;

/** Every item in one page: `has_more` false, `next_cursor` null. */
export const singlePage = (data: unknown[]) => ({ object: 'list' as const, data, has_more: false, next_cursor: null });

interface ListBase<Q extends PagedQuery> extends Omit<OperationSpec<Q, undefined>, 'method' | 'body' | 'handler'> {
  /** The filters a cursor is bound to: a cursor from other filters is refused. */
  filters(input: OperationInput<z.output<Q>, undefined>): Record<string, unknown>;
}

type FetchJson<Q extends PagedQuery> = (input: OperationInput<z.output<Q>, undefined>, page: PageRequest) => Promise<{ dataJson: Uint8Array; pageInfo?: PageInfo | undefined }>;

/** A list whose service answers with messages, each turned into JSON here. */
interface TypedListSpec<Q extends PagedQuery, Item> extends ListBase<Q> {
  /** One page from the owning service. */
  fetch(input: OperationInput<z.output<Q>, undefined>, page: PageRequest): Promise<{ data: Item[]; pageInfo?: PageInfo | undefined }>;
  toJson(item: Item): unknown;
  /**
   * The page as JSON text from the owning service, when it renders its own
   * (GET /events: kept pages rendered once, availability filled in live):
   * used instead of `fetch` and `toJson`, and must give the same JSON.
   */
  fetchJson?: FetchJson<Q>;
}

/** A list whose service answers only with JSON text (the event feed: bodies stored as JSON). */
interface RenderedListSpec<Q extends PagedQuery> extends ListBase<Q> {
  fetchJson: FetchJson<Q>;
}

export type ListSpec<Q extends PagedQuery, Item> = TypedListSpec<Q, Item> | RenderedListSpec<Q>;

export function defineListOperation<Q extends PagedQuery, Item>(spec: ListSpec<Q, Item>): Operation {
  const { filters, fetchJson, ...operation } = spec;
  return defineOperation<Q, undefined>({
    // `fetch` and `toJson` ride along unread: the handler below uses them.
    ...operation,
    method: 'get',
    async handler(generic) {
      const input = generic as unknown as OperationInput<z.output<Q>, undefined>;
      const pager = new Pager(input.deps.sealer, listingScope(`GET ${spec.path}`, input.ctx.organisationId, filters(input)));
      const page = pager.page(input.query as { limit: number; cursor?: string });
      if (fetchJson) {
        const rendered = await fetchJson(input, page);
        return { status: 200, jsonText: pager.envelopeJson(rendered.dataJson, rendered.pageInfo) };
      }
      const typed = spec as TypedListSpec<Q, Item>;
      const result = await typed.fetch(input, page);
      return ok(pager.envelope(result.data.map((item) => typed.toJson(item)), result.pageInfo));
    },
  });
}
