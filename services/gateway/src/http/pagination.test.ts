import { ApiError } from '@partner-api/shared';
import { CursorSealer, listingScope, PaginationQuery } from './pagination';

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
