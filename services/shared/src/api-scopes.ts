/**
 * The spec's API key scopes: the gateway checks them on every request and
 * issues keys with them; the dashboard and partnerctl offer them.
 */
export const SCOPES = [
  'events:read',
  'orders:read',
  'orders:write',
  'attendees:read',
  'check_in:write',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];
