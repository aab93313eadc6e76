import { formatCents, formatTimestamp, parseCents } from './format';

describe('money', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [8950, '89.50'],
    [-120, '-1.20'],
    [123456789012, '1234567890.12'],
  ])('writes %d cents as %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('reads decimal strings back to cents without floating point', () => {
    expect(parseCents('0.1')).toBe(10);
    expect(parseCents('19.99')).toBe(1999);
    expect(parseCents('7')).toBe(700);
  });

  it('rejects amounts that are not plain decimals', () => {
    expect(() => parseCents('1.999')).toThrow(RangeError);
    expect(() => parseCents('-1.00')).toThrow(RangeError);
    expect(() => parseCents('1e3')).toThrow(RangeError);
  });
});

describe('timestamps', () => {
  it('drops milliseconds and keeps UTC', () => {
    expect(formatTimestamp(new Date('2026-10-18T09:05:07.123Z'))).toBe('2026-10-18T09:05:07Z');
  });
});
