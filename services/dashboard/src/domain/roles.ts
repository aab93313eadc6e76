/**
 * What each role may do (D320). Checked on the server for every route; the
 * navigation only hides what a role could not open anyway.
 */
export const ROLES = ['owner', 'admin', 'developer', 'door_staff'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', door_staff: 'Door staff' };

export type Permission =
  | 'keys'
  | 'webhooks'
  | 'orders.view'
  | 'orders.change'
  | 'door'
  | 'members'
  | 'audit';

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ['keys', 'webhooks', 'orders.view', 'orders.change', 'door', 'members', 'audit'],
  admin: ['keys', 'webhooks', 'orders.view', 'orders.change', 'door', 'members', 'audit'],
  developer: ['keys', 'webhooks', 'orders.view'],
  door_staff: ['door'],
};

export const can = (role: Role, permission: Permission): boolean => GRANTS[role].includes(permission);

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/** Owners make owners; admins invite and manage everyone but owners. */
export const canManageRole = (actor: Role, target: Role): boolean => actor === 'owner' || (actor === 'admin' && target !== 'owner');

/** Where a member lands after signing in: the first page their role opens. */
export const homeOf = (role: Role): string => (role === 'door_staff' ? '/door' : '/keys');
