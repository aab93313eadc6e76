import { can, canManageRole, homeOf, ROLES } from './roles';

describe('roles', () => {
  test('grant what D320 says, and nothing more', () => {
    const table = Object.fromEntries(ROLES.map((role) => [role, (['keys', 'webhooks', 'orders.view', 'orders.change', 'door', 'members', 'audit'] as const).filter((permission) => can(role, permission))]));
    expect(table).toEqual({
      owner: ['keys', 'webhooks', 'orders.view', 'orders.change', 'door', 'members', 'audit'],
      admin: ['keys', 'webhooks', 'orders.view', 'orders.change', 'door', 'members', 'audit'],
      developer: ['keys', 'webhooks', 'orders.view'],
      door_staff: ['door'],
    });
  });

  test('owners manage everyone, admins everyone but owners, the others nobody', () => {
    expect(ROLES.filter((target) => canManageRole('owner', target))).toEqual(ROLES);
    expect(ROLES.filter((target) => canManageRole('admin', target))).toEqual(['admin', 'developer', 'door_staff']);
    expect(ROLES.filter((target) => canManageRole('developer', target))).toEqual([]);
    expect(ROLES.filter((target) => canManageRole('door_staff', target))).toEqual([]);
  });

  test('door staff land on the door, everyone else on their keys', () => {
    expect(ROLES.map(homeOf)).toEqual(['/keys', '/keys', '/keys', '/door']);
  });
});
