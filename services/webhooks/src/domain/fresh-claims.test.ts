import { FreshClaims } from './fresh-claims';

describe('FreshClaims', () => {
  it('hands out attempts oldest first, no more than asked for', () => {
    const claims = new FreshClaims<string>(10, 1_000);
    claims.add(['a', 'b'], 0);
    claims.add(['c'], 100);
    expect(claims.take(2, 200)).toEqual({ fresh: ['a', 'b'], stale: [] });
    expect(claims.take(5, 200)).toEqual({ fresh: ['c'], stale: [] });
    expect(claims.size).toBe(0);
  });

  it('gives back as stale what was claimed too long ago to start, without counting it against the limit', () => {
    const claims = new FreshClaims<string>(10, 1_000);
    claims.add(['old-1', 'old-2'], 0);
    claims.add(['new-1', 'new-2'], 900);
    expect(claims.take(1, 1_500)).toEqual({ fresh: ['new-1'], stale: ['old-1', 'old-2'] });
    expect(claims.take(5, 1_500)).toEqual({ fresh: ['new-2'], stale: [] });
  });

  it('an attempt exactly at its deadline may still start', () => {
    const claims = new FreshClaims<string>(10, 1_000);
    claims.add(['edge'], 0);
    expect(claims.take(1, 1_000).fresh).toEqual(['edge']);
  });

  it('makes room for no more than its capacity', () => {
    const claims = new FreshClaims<number>(3, 1_000);
    expect(claims.room()).toBe(3);
    claims.add([1, 2], 0);
    expect(claims.room()).toBe(1);
    claims.add([3, 4], 0); // a fan-out never claims more than room(); past it room stays 0
    expect(claims.room()).toBe(0);
    claims.take(3, 0);
    expect(claims.room()).toBe(2);
  });

  it('takeAll empties it, for the shutdown to return the lot', () => {
    const claims = new FreshClaims<string>(10, 1_000);
    claims.add(['x', 'y'], 0);
    expect(claims.takeAll()).toEqual(['x', 'y']);
    expect(claims.take(5, 0)).toEqual({ fresh: [], stale: [] });
  });
});
