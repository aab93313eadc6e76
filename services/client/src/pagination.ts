/**
 * Cursor iteration over a list operation: pages are fetched one at a time,
 * following `next_cursor` while `has_more` is true, as the spec's
 * pagination says (cursors are opaque: passed back, never built).
 */
export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

export type PageFetcher<T> = (cursor: string | undefined) => Promise<ListPage<T>>;

export async function* paginate<T>(fetchPage: PageFetcher<T>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    if (!page.has_more || !page.next_cursor) return;
    cursor = page.next_cursor;
  }
}
