/** The API's wire formats: money as two-decimal strings, times as second-precision UTC. */

/** Integer cents to `"12.50"`; no floating point on the way. */
export function formatCents(cents: number | bigint): string {
  const value = BigInt(cents);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** `"12.50"` to 1250; rejects anything that is not a plain two-place decimal. */
export function parseCents(amount: string): number {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(amount);
  if (!match) throw new RangeError(`not a decimal amount: ${amount}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** `YYYY-MM-DDTHH:MM:SSZ` */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function formatOptionalTimestamp(date: Date | null | undefined): string | undefined {
  return date ? formatTimestamp(date) : undefined;
}
