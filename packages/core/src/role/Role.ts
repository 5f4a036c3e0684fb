import { BadRequestError } from '../shared/errors';

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

/** Who the endpoint-manager API serves: an endpoint's administrators, activity managers and activity monitors. */
export const MONITOR_ROLES: readonly EndpointRole[] = ['administrator', 'activity_manager', 'activity_monitor'];
/** Who manages an endpoint's pause rules: its administrators and activity managers (as the operator does with `xfer pause-rule`). */
export const PAUSE_RULE_MANAGERS: readonly EndpointRole[] = ['administrator', 'activity_manager'];

/** Who manages a share's access rules: its administrators (the owner among them) and access managers. */
export function canManageAccessRules(roles: readonly EndpointRole[]): boolean {
  return roles.includes('administrator') || roles.includes('access_manager');
}

/**
 * A host's administrators oversee the shares of their host, whoever made them: they see each
 * share's host_path and access rules, and may delete it.
 */
export function oversees(hostRoles: readonly EndpointRole[]): boolean {
  return hostRoles.includes('administrator');
}

/** What a grant names: the role and who receives it. */
export interface RoleGrant {
  role: string;
  principal_type: string;
  principal: string;
}

/**
 * The rules of granting a role through the API (catalogue features 3): roles exist on managed
 * endpoints (a share: on a managed host); access managers manage access rules, which only shares
 * have; activity managers see and cancel the transfer tasks that use the endpoint, activity monitors see them.
 */
export function checkRoleGrant(grant: RoleGrant, endpoint: { kind: string; managed: boolean }): { role: EndpointRole; principal_type: PrincipalType } {
  if (!(['administrator', 'access_manager', 'activity_manager', 'activity_monitor'] as string[]).includes(grant.role)) {
    throw new BadRequestError(`Invalid role '${grant.role}': must be administrator, access_manager, activity_manager or activity_monitor`);
  }
  if (grant.principal_type !== 'identity' && grant.principal_type !== 'group') throw new BadRequestError(`Invalid principal_type '${grant.principal_type}': must be identity or group`);
  if (!endpoint.managed) throw new BadRequestError('Roles can be granted only on managed endpoints (for a share: on a managed host)');
  if (grant.role === 'access_manager' && endpoint.kind !== 'shared') throw new BadRequestError("The role 'access_manager' exists only on shared endpoints, which have access rules");
  return { role: grant.role as EndpointRole, principal_type: grant.principal_type };
}

/** The owner's own administrator role: it goes only with the endpoint. */
export function isOwnerAdministrator(assignment: RoleAssignmentState, endpoint: { ownerId: string }): boolean {
  return assignment.role === 'administrator' && assignment.principal_type === 'identity' && assignment.principal_id === endpoint.ownerId;
}
