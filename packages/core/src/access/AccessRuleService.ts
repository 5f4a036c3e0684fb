import type { Principal } from '../auth/Principal';
import type { Endpoint } from '../endpoint/Endpoint';
import { hostRolesOf, loadEndpoint } from '../endpoint/loadEndpoint';
import { canManageAccessRules, canViewEndpoint, isOwnerAdministrator, MONITOR_ROLES, oversees, type EndpointRole } from '../role/Role';
import { AccessRuleNotFoundError, BadRequestError, ExistsError, LimitExceededError, PermissionDeniedError } from '../shared/errors';
import type { Clock, IdGenerator } from '../shared/ports';
import { isUuid } from '../shared/text';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { checkExpiration, checkPermissionsFor, MAX_ACCESS_RULES, newAccessRule, type AccessRuleState, type NewAccessRule } from './AccessRule';

export type AccessRuleRepositories = RepositoriesOf<'endpoints' | 'roles' | 'accessRules' | 'identities' | 'groups'>;
type Repos = AccessRuleRepositories['repositories'];

/** A rule as the access list shows it: explicit (with an id) or implicit from ownership or a role (id null). */
export interface AccessRuleView extends Omit<AccessRuleState, 'id' | 'endpoint_id'> {
  id: string | null;
  role_id: string | null;
  role_type: EndpointRole | null;
}

export interface AccessRulePatch {
  permissions?: string;
  expiration_date?: string | null;
}

const explicit = (rule: AccessRuleState): AccessRuleView => ({ ...rule, role_id: null, role_type: null });

/** Only shares have access rules; that an endpoint is not one is said only to those who may see it (a stranger learns nothing of a private endpoint's kind). */
function assertShareToOneWhoMaySee(endpoint: Endpoint, roles: readonly EndpointRole[]): void {
  if (endpoint.kind === 'shared') return;
  if (!canViewEndpoint(endpoint.isPublic, roles)) throw new PermissionDeniedError(`You may not see endpoint '${endpoint.id}'`);
  throw new BadRequestError(`Endpoint '${endpoint.id}' is not a shared endpoint: only shares have access rules`);
}

/** Access rules of shares (catalogue features 4): managed by the share's administrators and access managers. */
export class AccessRuleService {
  constructor(
    private readonly uow: AccessRuleRepositories,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Every rule: the implicit ones (the owner's rw on /, one per administrator or access manager role), then the explicit ones. */
  async list(caller: Principal, xid: string, as: 'manager' | 'monitor' = 'manager'): Promise<{ endpointId: string; rules: AccessRuleView[] }> {
    const repos = this.uow.repositories;
    const share = as === 'manager' ? await this.share(repos, caller, xid, false) : await this.monitoredShare(repos, caller, xid);
    const implicit: AccessRuleView[] = [this.ownerRule(share)];
    for (const role of await repos.roles.listForEndpoint(share.id)) {
      if ((role.role !== 'administrator' && role.role !== 'access_manager') || isOwnerAdministrator(role, share)) continue;
      implicit.push({ ...this.ownerRule(share), principal_type: role.principal_type, principal: role.principal_id, create_time: role.created_at, role_id: role.id, role_type: role.role });
    }
    return { endpointId: share.id, rules: [...implicit, ...(await repos.accessRules.listForEndpoint(share.id)).map(explicit)] };
  }

  async get(caller: Principal, xid: string, ruleId: string): Promise<AccessRuleView> {
    const repos = this.uow.repositories;
    const share = await this.share(repos, caller, xid, false);
    return explicit(await this.rule(repos, share, ruleId));
  }

  /** Adds a rule for a known identity or group, or for everyone; the same principal and path twice is Exists. */
  async add(caller: Principal, xid: string, input: NewAccessRule): Promise<AccessRuleState> {
    return this.uow.transaction(async (repos) => {
      const share = await this.share(repos, caller, xid, true);
      const rule = newAccessRule(input, { id: this.ids.uuid(), endpointId: share.id, now: this.clock.now() });
      if (rule.principal_type === 'identity' || rule.principal_type === 'group') {
        const known = isUuid(rule.principal) && (rule.principal_type === 'identity' ? await repos.identities.findById(rule.principal) : await repos.groups.findById(rule.principal));
        if (!known) throw new BadRequestError(`No ${rule.principal_type} '${input.principal}' to give access to`);
      }
      const existing = await repos.accessRules.listForEndpoint(share.id);
      if (existing.some((r) => r.principal_type === rule.principal_type && r.principal === rule.principal && r.path === rule.path)) {
        throw new ExistsError(`An access rule for this principal and path '${rule.path}' exists already`);
      }
      if (existing.length >= MAX_ACCESS_RULES) throw new LimitExceededError(`A shared endpoint has at most ${MAX_ACCESS_RULES} access rules`);
      await repos.accessRules.add(rule);
      return rule;
    });
  }

  /** Changes permissions and/or the expiration date (null: never expires). */
  async update(caller: Principal, xid: string, ruleId: string, patch: AccessRulePatch): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const share = await this.share(repos, caller, xid, true);
      const rule = await this.rule(repos, share, ruleId);
      const now = this.clock.now();
      const changed: AccessRuleState = {
        ...rule,
        ...(patch.permissions !== undefined && { permissions: checkPermissionsFor(rule.principal_type, patch.permissions) }),
        ...(patch.expiration_date !== undefined && { expiration_date: patch.expiration_date === null ? null : checkExpiration(patch.expiration_date, now) }),
      };
      await repos.accessRules.update(changed);
    });
  }

  async delete(caller: Principal, xid: string, ruleId: string): Promise<void> {
    await this.uow.transaction(async (repos) => {
      const share = await this.share(repos, caller, xid, true);
      await repos.accessRules.delete((await this.rule(repos, share, ruleId)).id);
    });
  }

  /**
   * The share, for a caller who is its administrator or access manager; to read its rules, an
   * administrator of its host also (they oversee every share of their host).
   */
  private async share(repos: Repos, caller: Principal, xid: string, forUpdate: boolean): Promise<Endpoint> {
    const { endpoint, roles } = await loadEndpoint(repos, caller, xid, { forUpdate });
    assertShareToOneWhoMaySee(endpoint, roles);
    if (canManageAccessRules(roles)) return endpoint;
    if (!forUpdate && oversees((await hostRolesOf(repos, caller, endpoint.hostEndpointId)).hostRoles)) return endpoint;
    throw new PermissionDeniedError(`You need the 'administrator' or 'access_manager' role on endpoint '${endpoint.id}' to manage its access rules`);
  }

  /** The share, for a caller who monitors it or its host (the endpoint manager's access_list). */
  private async monitoredShare(repos: Repos, caller: Principal, xid: string): Promise<Endpoint> {
    const { endpoint, roles } = await loadEndpoint(repos, caller, xid);
    assertShareToOneWhoMaySee(endpoint, roles);
    const monitors = (held: readonly EndpointRole[]) => held.some((r) => MONITOR_ROLES.includes(r));
    if (monitors(roles) || monitors((await hostRolesOf(repos, caller, endpoint.hostEndpointId)).hostRoles)) return endpoint;
    throw new PermissionDeniedError(`You need the 'administrator', 'activity_manager' or 'activity_monitor' role on endpoint '${endpoint.id}' or its host`);
  }

  private async rule(repos: Repos, share: Endpoint, ruleId: string): Promise<AccessRuleState> {
    const rule = isUuid(ruleId) ? await repos.accessRules.findById(ruleId.toLowerCase()) : null;
    if (!rule || rule.endpoint_id !== share.id) throw new AccessRuleNotFoundError(ruleId);
    return rule;
  }

  private ownerRule(share: Endpoint): AccessRuleView {
    return {
      id: null,
      role_id: null,
      role_type: null,
      principal_type: 'identity',
      principal: share.ownerId,
      path: '/',
      permissions: 'rw',
      notify_email: null,
      notify_message: null,
      create_time: share.snapshot.created_at,
      expiration_date: null,
    };
  }
}
