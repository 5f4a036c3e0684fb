import { canViewEndpoint, checkRoleGrant, effectiveRoles, ENDPOINT_ROLES, isOwnerAdministrator, type RoleAssignmentState } from './Role';

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

describe('granting a role through the API', () => {
  const managedShare = { kind: 'shared', managed: true };
  const managedServer = { kind: 'server', managed: true };
  const grant = (role: string, principal_type = 'identity') => ({ role, principal_type, principal: 'bob' });

  it('grants administrator, activity_monitor and, on shares, access_manager, to an identity or a group', () => {
    expect(checkRoleGrant(grant('administrator'), managedServer)).toEqual({ role: 'administrator', principal_type: 'identity' });
    expect(checkRoleGrant(grant('activity_monitor', 'group'), managedServer)).toEqual({ role: 'activity_monitor', principal_type: 'group' });
    expect(checkRoleGrant(grant('access_manager'), managedShare)).toEqual({ role: 'access_manager', principal_type: 'identity' });
  });

  it('grants activity_manager now that tasks exist, and refuses any other role by name', () => {
    expect(checkRoleGrant(grant('activity_manager'), managedShare)).toEqual({ role: 'activity_manager', principal_type: 'identity' });
    expect(() => checkRoleGrant(grant('owner'), managedShare)).toThrow("Invalid role 'owner': must be administrator, access_manager, activity_manager or activity_monitor");
  });

  it('refuses a principal_type other than identity or group', () => {
    expect(() => checkRoleGrant(grant('administrator', 'all_authenticated_users'), managedShare)).toThrow(
      "Invalid principal_type 'all_authenticated_users': must be identity or group",
    );
  });

  it('grants only on managed endpoints, and access_manager only on shares', () => {
    expect(() => checkRoleGrant(grant('administrator'), { kind: 'shared', managed: false })).toThrow('Roles can be granted only on managed endpoints (for a share: on a managed host)');
    expect(() => checkRoleGrant(grant('access_manager'), managedServer)).toThrow("The role 'access_manager' exists only on shared endpoints, which have access rules");
  });
});

describe("the owner's own administrator role", () => {
  const assignment = (role: RoleAssignmentState['role'], principal_type: 'identity' | 'group', principal_id: string): RoleAssignmentState => ({
    id: 'r1',
    endpoint_id: 'e1',
    role,
    principal_type,
    principal_id,
    created_at: new Date(0),
  });

  it("is the owner identity's administrator assignment and nothing else", () => {
    const endpoint = { ownerId: 'owner' };
    expect(isOwnerAdministrator(assignment('administrator', 'identity', 'owner'), endpoint)).toBe(true);
    expect(isOwnerAdministrator(assignment('activity_monitor', 'identity', 'owner'), endpoint)).toBe(false);
    expect(isOwnerAdministrator(assignment('administrator', 'group', 'owner'), endpoint)).toBe(false);
    expect(isOwnerAdministrator(assignment('administrator', 'identity', 'bob'), endpoint)).toBe(false);
  });
});
