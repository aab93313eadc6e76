/** A uuid in its text form, any version, either case: how every service checks an id before it looks one up. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * A uuid named by a digest (version 8, the name-based layout of RFC 9562):
 * the same name always gives the same id, so a retried request finds what
 * its first attempt made instead of making a second one.
 */
export function nameBasedUuid(digest: Uint8Array): string {
  if (digest.length < 16) throw new Error('a name-based uuid needs a digest of at least 16 bytes');
  const bytes = Buffer.from(digest.subarray(0, 16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
