/**
 * The bodies of list pages this gateway process answered last, by the
 * listing and page they belong to, with the tag the owning service gave
 * their bytes. The next call for the same page sends the tag; when the
 * page is still exactly those bytes the service answers "unchanged" instead
 * of the whole page again (GET /events polled between sales: a few bytes
 * across gRPC instead of 27 KB). Only a saving: the tag, a hash of the
 * bytes, decides, so a page another call replaced is never served stale.
 */
import { LRUCache } from 'lru-cache';

export interface PageBody {
  tag: string;
  json: Uint8Array;
}

/** At most this many bytes of page bodies per process; the least recently used go first. */
const MAX_BYTES = 32 * 1024 * 1024;

export class PageBodies {
  private readonly kept: LRUCache<string, PageBody>;

  constructor(maxBytes = MAX_BYTES) {
    this.kept = new LRUCache<string, PageBody>({ maxSize: maxBytes, sizeCalculation: (body, key) => body.json.byteLength + key.length + 64 });
  }

  private get(page: string): PageBody | undefined {
    return this.kept.get(page);
  }

  /** Keeps a page's body; an empty tag (a service that does not tag) keeps nothing. */
  private keep(page: string, body: PageBody): void {
    if (body.tag) this.kept.set(page, body);
  }

  /**
   * The page's JSON from `fetch`, which is told the tag of the bytes kept
   * for it and answers either new bytes with their tag or `unchanged`.
   */
  async fetch<R extends { jsonTag: string; jsonUnchanged: boolean; dataJson: Uint8Array }>(page: string, fetch: (knownTag: string) => Promise<R>): Promise<R> {
    const known = this.get(page);
    const answer = await fetch(known?.tag ?? '');
    if (answer.jsonUnchanged && known && answer.jsonTag === known.tag) return { ...answer, dataJson: known.json };
    if (answer.jsonUnchanged) throw new Error('the service answered "unchanged" for a page this process does not keep');
    // A copy: the bytes as decoded are a view into the whole gRPC answer (a batch of many pages).
    this.keep(page, { tag: answer.jsonTag, json: Uint8Array.prototype.slice.call(answer.dataJson) });
    return answer;
  }
}
