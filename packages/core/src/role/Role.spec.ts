import { canViewEndpoint, effectiveRoles, ENDPOINT_ROLES, type RoleAssignmentState } from './Role';

describe('effective roles', () => {
  const endpoint = { id: 'e1', ownerId: 'owner' };
  const now = new Date('2026-01-02T03:04:05.000Z');
  const role = (role: RoleAssignmentState['role'], principal_type: 'identity' | 'group', principal_id: string, endpoint_id = 'e1'): RoleAssignmentState => ({
    id: `${role}-${principal_id}-${endpoint_id}`,
    endpoint_id,
    role,
    principal_type,
    principal_id,
    created_at: now,
  });
  const caller = (identityIds: string[], groupIds: string[] = []) => ({ identityIds: new Set(identityIds), groupIds: new Set(groupIds) });

  it('counts only the assignments of this endpoint held by the caller, as an identity or through a group', () => {
    const assignments = [
      role('activity_monitor', 'identity', 'bob'),
      role('access_manager', 'group', 'lab'),
      role('administrator', 'identity', 'carol'),
      role('administrator', 'group', 'bob'), // a group whose id happens to be bob's identity id
      role('activity_manager', 'identity', 'bob', 'e2'),
    ];
    expect(effectiveRoles(endpoint, caller(['bob']), assignments)).toEqual(['activity_monitor']);
    expect(effectiveRoles(endpoint, caller(['bob'], ['lab']), assignments)).toEqual(['activity_monitor', 'access_manager']);
    expect(effectiveRoles(endpoint, caller(['dave'], ['bob']), assignments)).toEqual(['administrator']);
    expect(effectiveRoles(endpoint, caller(['dave']), assignments)).toEqual([]);
  });

  it('makes the owner, or any identity linked to the owner, an administrator without an assignment', () => {
    expect(effectiveRoles(endpoint, caller(['owner']), [])).toEqual(['administrator']);
    expect(effectiveRoles(endpoint, caller(['alias', 'owner']), [role('activity_monitor', 'identity', 'alias')])).toEqual(['administrator', 'activity_monitor']);
  });

  it('lists roles in the order of ENDPOINT_ROLES, each once', () => {
    const all = ENDPOINT_ROLES.flatMap((r) => [role(r, 'identity', 'bob'), role(r, 'group', 'lab')]);
    expect(effectiveRoles(endpoint, caller(['bob'], ['lab']), [...all].reverse())).toEqual([...ENDPOINT_ROLES]);
  });

  it('lets a public endpoint be seen by anyone, a private one by administrators and activity monitors', () => {
    expect(canViewEndpoint(true, [])).toBe(true);
    expect(canViewEndpoint(false, [])).toBe(false);
    for (const r of ENDPOINT_ROLES) expect([r, canViewEndpoint(false, [r])]).toEqual([r, r === 'administrator' || r === 'activity_monitor']);
  });
});
