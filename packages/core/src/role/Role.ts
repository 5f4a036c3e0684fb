export type EndpointRole = 'administrator' | 'activity_manager' | 'activity_monitor' | 'access_manager';
export const ENDPOINT_ROLES: readonly EndpointRole[] = [
  'administrator',
  'activity_manager',
  'activity_monitor',
  'access_manager',
];

export type PrincipalType = 'identity' | 'group';

export interface RoleAssignmentState {
  id: string;
  endpoint_id: string;
  role: EndpointRole;
  principal_type: PrincipalType;
  principal_id: string;
  created_at: Date;
}

export interface RoleRepository {
  /** Fails with ConflictError when the same principal already holds the same role. */
  add(assignment: RoleAssignmentState): Promise<void>;
  listForEndpoint(endpointId: string): Promise<RoleAssignmentState[]>;
  findById(id: string): Promise<RoleAssignmentState | null>;
  delete(id: string): Promise<void>;
  deleteForEndpoint(endpointId: string): Promise<void>;
}

/** Roles a principal holds on an endpoint: assignments to any of its identities or groups; the owner is an administrator. */
export function effectiveRoles(
  endpoint: { id: string; ownerId: string },
  principal: { identityIds: ReadonlySet<string>; groupIds: ReadonlySet<string> },
  assignments: readonly RoleAssignmentState[],
): EndpointRole[] {
  const held = new Set<EndpointRole>();
  for (const a of assignments) {
    if (a.endpoint_id !== endpoint.id) continue;
    const ids = a.principal_type === 'identity' ? principal.identityIds : principal.groupIds;
    if (ids.has(a.principal_id)) held.add(a.role);
  }
  if (principal.identityIds.has(endpoint.ownerId)) held.add('administrator');
  return ENDPOINT_ROLES.filter((r) => held.has(r));
}

/** Spec 4.2 rules 1, 7, 8: public, or the caller is an administrator or activity monitor. */
export function canViewEndpoint(isPublic: boolean, roles: readonly EndpointRole[]): boolean {
  return isPublic || roles.includes('administrator') || roles.includes('activity_monitor');
}
