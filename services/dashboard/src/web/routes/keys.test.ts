import { keyListPage } from './keys';

const keys = (states: string[]) => states.map((state, index) => ({ id: index + 1, state }));

describe('keyListPage', () => {
  it('lists working keys newest first, 25 a page, and the ended ones only when asked', () => {
    const all = keys([...Array<string>(28).fill('active'), 'revoked', 'expired', 'expiring']);
    const first = keyListPage(all, {});
    expect(first.keys.map((key) => key.id)).toEqual([31, ...Array.from({ length: 24 }, (_, i) => 28 - i)]);
    expect(first).toMatchObject({ page: 1, pages: 2, showEnded: false, endedCount: 2 });
    expect(keyListPage(all, { page: '2' }).keys.map((key) => key.id)).toEqual([4, 3, 2, 1]);
    const ended = keyListPage(all, { ended: 'shown' });
    expect(ended.keys.slice(0, 3).map((key) => key.state)).toEqual(['expiring', 'expired', 'revoked']);
    expect(ended).toMatchObject({ pages: 2, showEnded: true });
  });

  it('reads a page it cannot use as the first or the last', () => {
    const all = keys(Array<string>(3).fill('active'));
    expect(keyListPage(all, { page: '9' }).page).toBe(1);
    expect(keyListPage(all, { page: 'x' }).page).toBe(1);
    expect(keyListPage(all, { page: ['2'] }).page).toBe(1);
  });
});
