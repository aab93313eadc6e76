import { ApiError, gen } from '@partner-api/shared';
import { create } from '@bufbuild/protobuf';
import { CursorSealer, listingScope, PaginationQuery, Pager } from './pagination';

describe('cursors', () => {
  const sealer = new CursorSealer('test-secret');
  const scope = listingScope('GET /events', 1, { status: 'published', time: 'upcoming' });

  it('round-trip the keyset position for the same listing', () => {
    const cursor = sealer.seal('["2026-12-01T00:00:00Z",42]', scope);
    expect(sealer.unseal(cursor, scope)).toBe('["2026-12-01T00:00:00Z",42]');
  });

  it('are opaque: the position cannot be read from the cursor', () => {
    const cursor = sealer.seal('["2026-12-01T00:00:00Z",42]', scope);
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toContain('2026');
  });

  it('are refused when tampered with, from another listing or organisation, or sealed with another secret', () => {
    const cursor = sealer.seal('["2026-12-01T00:00:00Z",42]', scope);
    const flipped = Buffer.from(cursor, 'base64url');
    flipped[flipped.length - 1]! ^= 1;
    const attempts = [
      () => sealer.unseal(flipped.toString('base64url'), scope),
      () => sealer.unseal(cursor, listingScope('GET /events', 2, { status: 'published', time: 'upcoming' })),
      () => sealer.unseal(cursor, listingScope('GET /events', 1, { status: 'all', time: 'upcoming' })),
      () => sealer.unseal(cursor, listingScope('GET /venues', 1, {})),
      () => new CursorSealer('other-secret').unseal(cursor, scope),
      () => sealer.unseal('not-a-cursor', scope),
      () => sealer.unseal('', scope),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(ApiError);
      try {
        attempt();
      } catch (error) {
        expect(error).toMatchObject({ code: 'parameter_invalid', param: 'cursor' });
      }
    }
  });
});

describe('the list envelope around JSON a service rendered', () => {
  const pager = new Pager(new CursorSealer('test-secret'), listingScope('GET /events', 1, {}));
  const data = [{ id: 1, title: 'A "quoted" title', ticketing: { tickets_remaining: null } }, { id: 2 }];

  it.each([
    ['the last page', create(gen.common.PageInfoSchema, { hasMore: false, nextAfter: '' })],
    ['a page with more after it', create(gen.common.PageInfoSchema, { hasMore: true, nextAfter: '["2026-12-01T00:00:00Z",42]' })],
    ['no page info', undefined],
  ])('is the same text as the envelope of the values: %s', (_case, pageInfo) => {
    const text = pager.envelopeJson(Buffer.from(JSON.stringify(data)), pageInfo).toString('utf8');
    const expected = pager.envelope(data, pageInfo);
    // Cursors are sealed with a fresh nonce each time: compare what they unseal to.
    const parsed = JSON.parse(text) as typeof expected;
    expect({ ...parsed, next_cursor: null }).toEqual({ ...expected, next_cursor: null });
    expect(Object.keys(parsed)).toEqual(Object.keys(expected));
    if (expected.next_cursor) expect(new CursorSealer('test-secret').unseal(parsed.next_cursor!, listingScope('GET /events', 1, {}))).toBe(pageInfo!.nextAfter);
    else expect(parsed.next_cursor).toBeNull();
  });
});

describe('limit', () => {
  it('defaults to 25 and accepts 1 to 100', () => {
    expect(PaginationQuery.parse({}).limit).toBe(25);
    expect(PaginationQuery.parse({ limit: '1' }).limit).toBe(1);
    expect(PaginationQuery.parse({ limit: '100' }).limit).toBe(100);
  });

  it.each(['0', '101', '2.5', 'ten', '', '-1', '0x10', '1e2', '+5', ' 5 ', '5 ', '007a', '0100'])('rejects %p', (limit) => {
    expect(PaginationQuery.safeParse({ limit }).success).toBe(false);
  });
});
