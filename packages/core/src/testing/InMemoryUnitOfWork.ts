import { isAccessRuleLive, type AccessRuleRepository, type AccessRuleState } from '../access/AccessRule';
import type { AccessTokenRepository, AccessTokenState } from '../auth/AccessToken';
import type { ClientRepository, ClientState } from '../auth/Client';
import type { ConsentRepository, ConsentState, NewConsent } from '../auth/Consent';
import type { ScopeRepository, ScopeState } from '../auth/Scope';
import type { SessionRepository, SessionState } from '../auth/Session';
import type { SignInFailureRepository } from '../auth/SignInThrottle';
import type { SigningKeyRepository, SigningKeyState } from '../auth/SigningKey';
import type { GroupRepository, GroupState } from '../auth/Group';
import type { AuthorizationCodeRepository, AuthorizationCodeState, RefreshTokenRepository, RefreshTokenState } from '../auth/Grant';
import { sortIdentitySet, type IdentityRepository, type IdentityState } from '../auth/Identity';
import { Endpoint, type EndpointState, type Tombstone } from '../endpoint/Endpoint';
import { endpointConflicts, type EndpointRepository, type ShareCursor } from '../endpoint/EndpointRepository';
import type { EndpointCriteria } from '../endpoint/EndpointRepository';
import { searchRank } from '../endpoint/EndpointSearch';
import type { PauseRuleRepository, PauseRuleState } from '../pause-rule/PauseRule';
import type { RoleAssignmentState, RoleRepository } from '../role/Role';
import { ConcurrentModificationError, ConflictError } from '../shared/errors';
import type { Maintenance, ServiceSettingsRepository } from '../shared/ServiceSettings';
import type { Repositories, UnitOfWork } from '../shared/UnitOfWork';
import { emptyTaskMaps, InMemoryTaskRepository, type TaskMaps } from './InMemoryTaskRepository';
import type { SubscriptionRepository, SubscriptionState } from '../subscription/Subscription';
import type { NodeCallKey, NodeRepository, NodeState } from '../node/Node';
import type { StorageGatewayRepository, StorageGatewayState } from '../gcs/StorageGateway';
import type { UserCredentialRepository, UserCredentialState } from '../gcs/UserCredential';

/** Everything the in-memory adapters hold; cloned whole to roll a transaction back. */
interface Store {
  endpoints: Map<string, EndpointState>;
  tombstones: Map<string, Tombstone>;
  roles: Map<string, RoleAssignmentState>;
  accessRules: Map<string, AccessRuleState>;
  pauseRules: Map<string, PauseRuleState>;
  subscriptions: Map<string, SubscriptionState>;
  identities: Map<string, IdentityState>;
  groups: Map<string, GroupState>;
  groupMembers: Set<string>;
  tokens: Map<string, AccessTokenState>;
  clients: Map<string, ClientState>;
  scopes: Map<string, ScopeState>;
  consents: Map<number, ConsentState>;
  sessions: Map<string, SessionState>;
  codes: Map<string, AuthorizationCodeState>;
  refreshTokens: Map<string, RefreshTokenState>;
  signInFailures: { key_hash: string; at: Date }[];
  signingKeys: Map<string, SigningKeyState>;
  maintenance: Maintenance | null;
  catalogueVersion: number;
  tasks: TaskMaps['tasks'];
  nodes: Map<string, NodeState>;
  nodeCallKeys: Map<string, { publicJwk: string; renewedAt: Date }>;
  storageGateways: Map<string, StorageGatewayState>;
  userCredentials: Map<string, UserCredentialState>;
  taskEvents: TaskMaps['taskEvents'];
  taskFiles: TaskMaps['taskFiles'];
}

/** The identities of one set, its primary first (as the adapters order them). */
function identitySetIn(store: Store, setId: string): IdentityState[] {
  return sortIdentitySet([...store.identities.values()].filter((i) => i.set_id === setId), setId);
}

const clone = <T>(value: T): T => structuredClone(value);

/** Ids of the shares on which a live rule grants one of the principals, or all authenticated users. */
function sharesGranting(store: Store, principalIds: readonly string[], now: Date): string[] {
  const ids = new Set(principalIds);
  const granting = [...store.accessRules.values()].filter(
    (r) => isAccessRuleLive(r, now) && (r.principal_type === 'all_authenticated_users' || ((r.principal_type === 'identity' || r.principal_type === 'group') && ids.has(r.principal))),
  );
  return [...new Set(granting.map((r) => r.endpoint_id))].sort();
}

/** Deletes at most `limit` entries of a map that match; returns how many. */
function purgeWhere<K, V>(map: Map<K, V>, matches: (value: V) => boolean, limit: number): number {
  let count = 0;
  for (const [key, value] of map) {
    if (count >= limit) break;
    if (matches(value)) {
      map.delete(key);
      count++;
    }
  }
  return count;
}

const expiredBefore = (before: Date) => (value: { expires_at: Date | null }) => value.expires_at !== null && value.expires_at.getTime() < before.getTime();

class InMemoryEndpointRepository implements EndpointRepository {
  constructor(private readonly store: () => Store) {}

  async findById(id: string) {
    const state = this.store().endpoints.get(id);
    return state ? Endpoint.fromPrimitives(state) : null;
  }
  async findByCanonicalName(canonicalName: string) {
    const state = [...this.store().endpoints.values()].find((e) => e.canonical_name === canonicalName);
    return state ? Endpoint.fromPrimitives(state) : null;
  }
  async findTombstone(key: { id: string } | { canonical_name: string }) {
    const all = [...this.store().tombstones.values()];
    const found = 'id' in key ? all.find((t) => t.id === key.id) : all.filter((t) => t.canonical_name === key.canonical_name).pop();
    return found ? clone(found) : null;
  }
  private checkUnique(state: EndpointState) {
    for (const other of this.store().endpoints.values()) {
      if (other.id === state.id) continue;
      if (state.display_name !== null && other.owner_id === state.owner_id && other.display_name === state.display_name) {
        throw endpointConflicts.displayName(state.display_name);
      }
      if (other.canonical_name === state.canonical_name) throw endpointConflicts.canonicalName(state.canonical_name);
    }
  }
  async insert(endpoint: Endpoint) {
    const state = endpoint.toPrimitives();
    if (this.store().endpoints.has(state.id)) throw new ConflictError(`Endpoint '${state.id}' already exists`);
    this.checkUnique(state);
    this.store().endpoints.set(state.id, state);
  }
  async update(endpoint: Endpoint) {
    const stored = this.store().endpoints.get(endpoint.id);
    if (!stored || stored.version !== endpoint.version) {
      throw new ConcurrentModificationError(`Endpoint '${endpoint.id}' was changed by another request`);
    }
    endpoint.nextVersion();
    const state = endpoint.toPrimitives();
    this.checkUnique(state);
    this.store().endpoints.set(state.id, state);
  }
  async delete(endpoint: Endpoint, tombstone: Tombstone) {
    const stored = this.store().endpoints.get(endpoint.id);
    if (!stored || stored.version !== endpoint.version) {
      throw new ConcurrentModificationError(`Endpoint '${endpoint.id}' was changed by another request`);
    }
    this.store().endpoints.delete(endpoint.id);
    this.store().tombstones.set(tombstone.id, clone(tombstone));
  }
  private sharesOf(hostId: string) {
    return [...this.store().endpoints.values()]
      .filter((e) => e.host_endpoint_id === hostId)
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id))
      .map(Endpoint.fromPrimitives);
  }
  async findByIds(ids: readonly string[]) {
    return ids.flatMap((id) => {
      const state = this.store().endpoints.get(id);
      return state ? [Endpoint.fromPrimitives(state)] : [];
    });
  }
  private heldOn(endpointId: string, principalIds: readonly string[]) {
    const principals = new Set(principalIds);
    return [...this.store().roles.values()].filter((a) => a.endpoint_id === endpointId && principals.has(a.principal_id)).map(clone);
  }
  async findWithRolesOf(key: { id: string } | { canonical_name: string }, principalIds: readonly string[]) {
    const endpoint = 'id' in key ? await this.findById(key.id) : await this.findByCanonicalName(key.canonical_name);
    return endpoint ? { endpoint, assignments: this.heldOn(endpoint.id, principalIds) } : null;
  }
  async search(criteria: EndpointCriteria) {
    const store = this.store();
    const now = criteria.grantedTo?.now ?? new Date();
    const holds = (e: EndpointState, h: { principalIds: readonly string[]; roles: readonly string[] }) =>
      [...store.roles.values()].some((a) => a.endpoint_id === e.id && h.principalIds.includes(a.principal_id) && h.roles.includes(a.role));
    const granted = new Set(criteria.grantedTo ? sharesGranting(store, criteria.grantedTo.principalIds, now) : []);
    const hits: { state: EndpointState; rank: number }[] = [];
    for (const e of store.endpoints.values()) {
      if (!e.public && !holds(e, criteria.visibleTo)) continue;
      if (criteria.ownedBy && !criteria.ownedBy.includes(e.owner_id)) continue;
      if (criteria.notOwnedBy && criteria.notOwnedBy.includes(e.owner_id)) continue;
      if (criteria.kinds && !criteria.kinds.includes(e.kind)) continue;
      if (criteria.holding && !holds(e, criteria.holding)) continue;
      if (criteria.grantedTo && !granted.has(e.id)) continue;
      if (criteria.hostId !== undefined && e.host_endpoint_id !== criteria.hostId) continue;
      if (criteria.hostKind && (e.host_endpoint_id === null || store.endpoints.get(e.host_endpoint_id)?.kind !== criteria.hostKind)) continue;
      if (criteria.collection !== undefined && (e.collection !== null) !== criteria.collection) continue;
      const functional = !(e.kind === 'server' && e.servers.length === 0);
      if (criteria.functional !== undefined && functional !== criteria.functional) continue;
      const rank = searchRank(e, criteria.terms);
      if (rank === null) continue;
      hits.push({ state: e, rank });
    }
    hits.sort((a, b) => b.rank - a.rank || (criteria.terms.length === 0 ? a.state.created_at.getTime() - b.state.created_at.getTime() : 0) || a.state.id.localeCompare(b.state.id));
    return hits.slice(criteria.offset, criteria.offset + criteria.limit).map(({ state, rank }) => ({
      endpoint: Endpoint.fromPrimitives(clone(state)),
      assignments: this.heldOn(state.id, criteria.visibleTo.principalIds),
      rank,
    }));
  }
  async listSharesOfHost(hostId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    const after = page.after;
    const isAfter = (e: Endpoint) => {
      if (after === null) return true;
      const t = e.snapshot.created_at.getTime() - after.createdAt.getTime();
      return t > 0 || (t === 0 && e.id > after.id);
    };
    return this.sharesOf(hostId)
      .filter(isAfter)
      .slice(0, page.limit)
      .map((endpoint) => ({ endpoint, assignments: this.heldOn(endpoint.id, principalIds) }));
  }
  async listCollectionsOfNode(nodeId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    const after = page.after;
    return [...this.store().endpoints.values()]
      .filter((e) => e.gcs_endpoint_id === nodeId && (after === null || e.created_at.getTime() > after.createdAt.getTime() || (e.created_at.getTime() === after.createdAt.getTime() && e.id > after.id)))
      .sort(byCreation)
      .slice(0, page.limit)
      .map((state) => ({ endpoint: Endpoint.fromPrimitives(state), assignments: this.heldOn(state.id, principalIds) }));
  }
  async listSharesHeldBy(hostId: string, holder: { identityIds: readonly string[]; principalIds: readonly string[]; roles: readonly string[] }) {
    const owners = new Set(holder.identityIds);
    return this.sharesOf(hostId)
      .map((endpoint) => ({ endpoint, assignments: this.heldOn(endpoint.id, holder.principalIds) }))
      .filter(({ endpoint, assignments }) => owners.has(endpoint.ownerId) || assignments.some((a) => holder.roles.includes(a.role)));
  }
}

class InMemoryRoleRepository implements RoleRepository {
  constructor(private readonly store: () => Store) {}
  async add(assignment: RoleAssignmentState) {
    for (const a of this.store().roles.values()) {
      if (a.endpoint_id === assignment.endpoint_id && a.role === assignment.role && a.principal_id === assignment.principal_id) {
        throw new ConflictError(`A role assignment with the same principal and role already exists`);
      }
    }
    this.store().roles.set(assignment.id, clone(assignment));
  }
  async listForEndpoint(endpointId: string) {
    return [...this.store().roles.values()].filter((a) => a.endpoint_id === endpointId).map(clone);
  }
  async deleteForEndpoint(endpointId: string) {
    for (const [id, a] of this.store().roles) if (a.endpoint_id === endpointId) this.store().roles.delete(id);
  }
  async findById(id: string) {
    const a = this.store().roles.get(id);
    return a ? clone(a) : null;
  }
  async delete(id: string) {
    this.store().roles.delete(id);
  }
}

class InMemoryPauseRuleRepository implements PauseRuleRepository {
  constructor(private readonly store: () => Store) {}
  async add(rule: PauseRuleState) {
    this.store().pauseRules.set(rule.id, clone(rule));
  }
  async listForEndpoint(endpointId: string) {
    return [...this.store().pauseRules.values()].filter((r) => r.endpoint_id === endpointId).map(clone);
  }
  async deleteForEndpoint(endpointId: string) {
    for (const [id, r] of this.store().pauseRules) if (r.endpoint_id === endpointId) this.store().pauseRules.delete(id);
  }
  async findById(id: string) {
    const r = this.store().pauseRules.get(id);
    return r ? clone(r) : null;
  }
  async update(rule: PauseRuleState) {
    if (this.store().pauseRules.has(rule.id)) this.store().pauseRules.set(rule.id, clone(rule));
  }
  async delete(id: string) {
    this.store().pauseRules.delete(id);
  }
}

class InMemorySubscriptionRepository implements SubscriptionRepository {
  constructor(private readonly store: () => Store) {}
  async add(subscription: SubscriptionState) {
    this.store().subscriptions.set(subscription.id, clone(subscription));
  }
  async findById(id: string) {
    const s = this.store().subscriptions.get(id);
    return s ? clone(s) : null;
  }
  async findByName(name: string) {
    const s = [...this.store().subscriptions.values()].find((x) => x.name === name);
    return s ? clone(s) : null;
  }
  async listForMembers(memberIds: readonly string[]) {
    const ids = new Set(memberIds);
    return [...this.store().subscriptions.values()]
      .filter((s) => s.member_ids.some((m) => ids.has(m)))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map(clone);
  }
  async addMember(subscriptionId: string, memberId: string) {
    const s = this.store().subscriptions.get(subscriptionId);
    if (s && !s.member_ids.includes(memberId)) s.member_ids.push(memberId);
  }
  async addAdministrator(subscriptionId: string, principalId: string) {
    const s = this.store().subscriptions.get(subscriptionId);
    if (s && !s.administrator_ids.includes(principalId)) s.administrator_ids.push(principalId);
  }
  async list() {
    return [...this.store().subscriptions.values()].sort((a, b) => a.name.localeCompare(b.name)).map(clone);
  }
}

class InMemoryIdentityRepository implements IdentityRepository {
  constructor(private readonly store: () => Store) {}
  async add(identity: IdentityState) {
    if ([...this.store().identities.values()].some((i) => i.username.toLowerCase() === identity.username.toLowerCase())) {
      throw new ConflictError(`Identity '${identity.username}' already exists`);
    }
    this.store().identities.set(identity.id, clone(identity));
  }
  async findById(id: string) {
    const i = this.store().identities.get(id);
    return i ? clone(i) : null;
  }
  async findByUsername(username: string) {
    const i = [...this.store().identities.values()].find((x) => x.username.toLowerCase() === username.toLowerCase());
    return i ? clone(i) : null;
  }
  async listSet(setId: string) {
    return identitySetIn(this.store(), setId).map(clone);
  }
  async update(identities: readonly IdentityState[]) {
    for (const i of identities) if (this.store().identities.has(i.id)) this.store().identities.set(i.id, clone(i));
  }
  async list() {
    return [...this.store().identities.values()].sort((a, b) => a.username.localeCompare(b.username)).map(clone);
  }
}

class InMemoryGroupRepository implements GroupRepository {
  constructor(private readonly store: () => Store) {}
  async add(group: GroupState) {
    if ([...this.store().groups.values()].some((g) => g.name === group.name)) throw new ConflictError(`Group '${group.name}' already exists`);
    this.store().groups.set(group.id, clone(group));
  }
  async findByName(name: string) {
    const g = [...this.store().groups.values()].find((x) => x.name === name);
    return g ? clone(g) : null;
  }
  async findById(id: string) {
    const g = this.store().groups.get(id);
    return g ? clone(g) : null;
  }
  async addMember(groupId: string, identityId: string) {
    this.store().groupMembers.add(`${groupId}/${identityId}`);
  }
  async removeMember(groupId: string, identityId: string) {
    this.store().groupMembers.delete(`${groupId}/${identityId}`);
  }
  async list() {
    return [...this.store().groups.values()].sort((a, b) => a.name.localeCompare(b.name)).map(clone);
  }
  async memberIds(groupId: string) {
    return [...this.store().groupMembers].filter((m) => m.startsWith(`${groupId}/`)).map((m) => m.split('/')[1]).sort();
  }
  async groupIdsOf(identityIds: readonly string[]) {
    const ids = new Set(identityIds);
    const result = new Set<string>();
    for (const m of this.store().groupMembers) {
      const [groupId, identityId] = m.split('/');
      if (ids.has(identityId)) result.add(groupId);
    }
    return [...result].sort();
  }
}

class InMemoryAccessTokenRepository implements AccessTokenRepository {
  constructor(private readonly store: () => Store) {}
  async add(token: AccessTokenState) {
    this.store().tokens.set(token.token_hash, clone(token));
  }
  async findByHash(hash: string) {
    const t = this.store().tokens.get(hash);
    return t ? clone(t) : null;
  }
  async findHolder(hash: string) {
    const token = this.store().tokens.get(hash);
    const identity = token && this.store().identities.get(token.identity_id);
    if (!token || !identity) return null;
    const set = identitySetIn(this.store(), identity.set_id);
    const ids = new Set(set.map((i) => i.id));
    const groupIds = [...new Set([...this.store().groupMembers].filter((m) => ids.has(m.split('/')[1])).map((m) => m.split('/')[0]))].sort();
    return { token: clone(token), identity: clone(identity), set: set.map(clone), groupIds };
  }
  async findByHashPrefix(prefix: string) {
    return [...this.store().tokens.values()].filter((t) => t.token_hash.startsWith(prefix)).map(clone);
  }
  async listForIdentity(identityId: string) {
    return [...this.store().tokens.values()]
      .filter((t) => t.identity_id === identityId)
      .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.token_hash.localeCompare(b.token_hash))
      .map(clone);
  }
  async revoke(hash: string, at: Date) {
    const t = this.store().tokens.get(hash);
    if (t && t.revoked_at === null) t.revoked_at = at;
  }
  async revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date) {
    return revokeWhere(this.store().tokens.values(), (t) => (t.client_id === clientId || t.consent_client_id === clientId) && identityIds.includes(t.identity_id), at);
  }
  async revokeForClient(clientId: string, at: Date) {
    return revokeWhere(this.store().tokens.values(), (t) => t.client_id === clientId, at);
  }
  async revokeByRefreshToken(refreshTokenHash: string, at: Date) {
    revokeWhere(this.store().tokens.values(), (t) => t.refresh_token_hash === refreshTokenHash, at);
  }
  async purgeExpired(before: Date, limit: number) {
    return purgeWhere(this.store().tokens, expiredBefore(before), limit);
  }
}

/** Stamps `revoked_at` on the live items that match; returns how many. */
function revokeWhere<T extends { revoked_at: Date | null }>(items: Iterable<T>, matches: (item: T) => boolean, at: Date): number {
  let count = 0;
  for (const item of items) {
    if (item.revoked_at === null && matches(item)) {
      item.revoked_at = at;
      count++;
    }
  }
  return count;
}

class InMemoryAuthorizationCodeRepository implements AuthorizationCodeRepository {
  constructor(private readonly store: () => Store) {}
  async add(code: AuthorizationCodeState) {
    if (this.store().codes.has(code.code_hash)) throw new ConflictError('Authorization code exists already');
    this.store().codes.set(code.code_hash, clone(code));
  }
  async findByHash(hash: string) {
    const c = this.store().codes.get(hash);
    return c ? clone(c) : null;
  }
  async markUsed(hash: string, at: Date) {
    const c = this.store().codes.get(hash);
    if (!c || c.used_at !== null) return false;
    c.used_at = at;
    return true;
  }
  async purgeExpired(before: Date, limit: number) {
    return purgeWhere(this.store().codes, expiredBefore(before), limit);
  }
}

class InMemoryRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly store: () => Store) {}
  async add(token: RefreshTokenState) {
    this.store().refreshTokens.set(token.token_hash, clone(token));
  }
  async findByHash(hash: string) {
    const t = this.store().refreshTokens.get(hash);
    return t ? clone(t) : null;
  }
  async revoke(hash: string, at: Date) {
    return revokeWhere(this.store().refreshTokens.values(), (t) => t.token_hash === hash, at) === 1;
  }
  async revokeIssuedForCode(codeHash: string, at: Date) {
    const live = [...this.store().refreshTokens.values()].filter((t) => t.authorization_code_hash === codeHash && t.revoked_at === null);
    revokeWhere(live, () => true, at);
    return live.map((t) => t.token_hash);
  }
  async revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date) {
    return revokeWhere(this.store().refreshTokens.values(), (t) => (t.client_id === clientId || t.consent_client_id === clientId) && identityIds.includes(t.identity_id), at);
  }
  async revokeForClient(clientId: string, at: Date) {
    return revokeWhere(this.store().refreshTokens.values(), (t) => t.client_id === clientId, at);
  }
}

class InMemoryClientRepository implements ClientRepository {
  constructor(private readonly store: () => Store) {}
  async add(client: ClientState) {
    if (this.store().clients.has(client.id)) throw new ConflictError(`Client '${client.id}' already exists`);
    this.store().clients.set(client.id, clone(client));
  }
  async findById(id: string) {
    const c = this.store().clients.get(id);
    return c ? clone(c) : null;
  }
  async findByIds(ids: readonly string[]) {
    return ids.flatMap((id) => (this.store().clients.has(id) ? [clone(this.store().clients.get(id)!)] : []));
  }
  async list() {
    return [...this.store().clients.values()].sort((a, b) => a.display_name.localeCompare(b.display_name)).map(clone);
  }
  async update(client: ClientState) {
    const stored = this.store().clients.get(client.id);
    if (stored) this.store().clients.set(client.id, { ...stored, display_name: client.display_name, redirect_uris: [...client.redirect_uris], secret_hash: client.secret_hash });
  }
  async delete(id: string) {
    this.store().clients.delete(id);
  }
}

class InMemoryScopeRepository implements ScopeRepository {
  constructor(private readonly store: () => Store) {}
  async add(scope: ScopeState) {
    if ([...this.store().scopes.values()].some((s) => s.name === scope.name)) throw new ConflictError(`Scope '${scope.name}' already exists`);
    this.store().scopes.set(scope.id, clone(scope));
  }
  async findByName(name: string) {
    const s = [...this.store().scopes.values()].find((x) => x.name === name);
    return s ? clone(s) : null;
  }
  async findByIds(ids: readonly string[]) {
    return ids.flatMap((id) => (this.store().scopes.has(id) ? [clone(this.store().scopes.get(id)!)] : []));
  }
  async list() {
    return [...this.store().scopes.values()].sort((a, b) => a.name.localeCompare(b.name)).map(clone);
  }
}

class InMemoryConsentRepository implements ConsentRepository {
  constructor(private readonly store: () => Store) {}
  async add(input: NewConsent) {
    const id = Math.max(0, ...this.store().consents.keys()) + 1;
    const { parent_path, ...rest } = input;
    const consent: ConsentState = { ...rest, id, dependency_path: [...parent_path, id] };
    this.store().consents.set(id, clone(consent));
    return clone(consent);
  }
  async listForIdentities(identityIds: readonly string[]) {
    const ids = new Set(identityIds);
    return [...this.store().consents.values()].filter((c) => ids.has(c.identity_id)).sort((a, b) => a.id - b.id).map(clone);
  }
  async findById(id: number) {
    const c = this.store().consents.get(id);
    return c ? clone(c) : null;
  }
  async update(consents: readonly ConsentState[]) {
    for (const c of consents) {
      const stored = this.store().consents.get(c.id);
      if (stored) Object.assign(stored, { status: c.status, updated: c.updated, last_used: c.last_used });
    }
  }
}

class InMemorySessionRepository implements SessionRepository {
  constructor(private readonly store: () => Store) {}
  async add(session: SessionState) {
    this.store().sessions.set(session.id_hash, clone(session));
  }
  async findByHash(hash: string) {
    const s = this.store().sessions.get(hash);
    return s ? clone(s) : null;
  }
  async findHolder(hash: string) {
    const session = this.store().sessions.get(hash);
    const identity = session && this.store().identities.get(session.identity_id);
    if (!session || !identity) return null;
    const set = identitySetIn(this.store(), identity.set_id);
    return { session: clone(session), identity: clone(identity), set: set.map(clone) };
  }
  async delete(hash: string) {
    this.store().sessions.delete(hash);
  }
  async deleteForIdentity(identityId: string) {
    purgeWhere(this.store().sessions, (s) => s.identity_id === identityId, Infinity);
  }
  async purgeExpired(before: Date, limit: number) {
    return purgeWhere(this.store().sessions, expiredBefore(before), limit);
  }
}

class InMemoryAccessRuleRepository implements AccessRuleRepository {
  constructor(private readonly store: () => Store) {}
  async add(rule: AccessRuleState) {
    this.store().accessRules.set(rule.id, clone(rule));
  }
  async listForEndpoint(endpointId: string) {
    return [...this.store().accessRules.values()]
      .filter((r) => r.endpoint_id === endpointId)
      .sort((a, b) => a.create_time.getTime() - b.create_time.getTime() || a.id.localeCompare(b.id))
      .map(clone);
  }
  async findById(id: string) {
    const r = this.store().accessRules.get(id);
    return r ? clone(r) : null;
  }
  async update(rule: AccessRuleState) {
    const stored = this.store().accessRules.get(rule.id);
    if (stored) Object.assign(stored, { permissions: rule.permissions, expiration_date: rule.expiration_date });
  }
  async delete(id: string) {
    this.store().accessRules.delete(id);
  }
  async deleteForEndpoint(endpointId: string) {
    purgeWhere(this.store().accessRules, (r) => r.endpoint_id === endpointId, Infinity);
  }
  async sharesGranting(principalIds: readonly string[], now: Date) {
    return sharesGranting(this.store(), principalIds, now);
  }
}

class InMemorySigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly store: () => Store) {}
  async add(key: SigningKeyState) {
    if (this.store().signingKeys.has(key.kid)) throw new ConflictError(`Signing key '${key.kid}' exists already`);
    this.store().signingKeys.set(key.kid, clone(key));
  }
  async list() {
    return [...this.store().signingKeys.values()].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.kid.localeCompare(b.kid)).map(clone);
  }
  async update(key: SigningKeyState) {
    const stored = this.store().signingKeys.get(key.kid);
    if (stored) stored.retired_at = key.retired_at;
  }
  async delete(kid: string) {
    this.store().signingKeys.delete(kid);
  }
}

class InMemorySignInFailureRepository implements SignInFailureRepository {
  constructor(private readonly store: () => Store) {}
  async add(keyHashes: readonly string[], at: Date) {
    for (const key_hash of keyHashes) this.store().signInFailures.push({ key_hash, at });
  }
  async countSince(keyHash: string, since: Date) {
    return this.store().signInFailures.filter((f) => f.key_hash === keyHash && f.at.getTime() >= since.getTime()).length;
  }
  async clear(keyHash: string) {
    this.store().signInFailures = this.store().signInFailures.filter((f) => f.key_hash !== keyHash);
  }
  async purgeBefore(before: Date, limit: number) {
    const failures = this.store().signInFailures;
    const old = failures.filter((f) => f.at.getTime() < before.getTime()).slice(0, limit);
    this.store().signInFailures = failures.filter((f) => !old.includes(f));
    return old.length;
  }
}

class InMemoryNodeRepository implements NodeRepository {
  constructor(private readonly store: () => Store) {}
  async add(node: NodeState) {
    const taken = [...this.store().nodes.values()].some((n) => n.name.toLowerCase() === node.name.toLowerCase());
    if (taken || this.store().nodes.has(node.id)) return false;
    this.store().nodes.set(node.id, clone(node));
    return true;
  }
  async findById(id: string) {
    const node = this.store().nodes.get(id);
    return node ? clone(node) : null;
  }
  async findByName(name: string) {
    const node = [...this.store().nodes.values()].find((n) => n.name.toLowerCase() === name.toLowerCase());
    return node ? clone(node) : null;
  }
  async list() {
    return [...this.store().nodes.values()].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())).map(clone);
  }
  async saveSecretHash(id: string, secretHash: string) {
    const node = this.store().nodes.get(id);
    if (node) node.secretHash = secretHash;
    return node !== undefined;
  }
  async saveLastContact(id: string, at: Date) {
    const node = this.store().nodes.get(id);
    if (node) node.lastContact = at;
  }
  async delete(id: string) {
    return this.store().nodes.delete(id);
  }
  async servedRoots(nodeId: string) {
    return [...this.store().endpoints.values()]
      .flatMap((endpoint) => (endpoint.storage?.type === 'node' && endpoint.storage.node === nodeId ? [{ endpointId: endpoint.id, root: endpoint.storage.root }] : []))
      .sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1));
  }
  async publishCallKey(key: NodeCallKey, at: Date) {
    this.store().nodeCallKeys.set(key.kid, { publicJwk: key.publicJwk, renewedAt: at });
  }
  async callKeysSince(since: Date) {
    return [...this.store().nodeCallKeys]
      .filter(([, key]) => key.renewedAt.getTime() >= since.getTime())
      .map(([kid, key]) => ({ kid, publicJwk: key.publicJwk }))
      .sort((a, b) => (a.kid < b.kid ? -1 : 1));
  }
  async purgeCallKeysBefore(before: Date) {
    return purgeWhere(this.store().nodeCallKeys, (key) => key.renewedAt.getTime() < before.getTime(), Number.MAX_SAFE_INTEGER);
  }
}

/** Oldest first, then by id: the order the adapters list a node's gateways and credentials in. */
const byCreation = (a: { created_at: Date; id: string }, b: { created_at: Date; id: string }) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

class InMemoryStorageGatewayRepository implements StorageGatewayRepository {
  constructor(private readonly store: () => Store) {}
  async add(gateway: StorageGatewayState) {
    this.store().storageGateways.set(gateway.id, clone(gateway));
  }
  async findById(id: string) {
    const gateway = this.store().storageGateways.get(id);
    return gateway ? clone(gateway) : null;
  }
  async listForNode(nodeId: string) {
    return [...this.store().storageGateways.values()].filter((g) => g.node_id === nodeId).sort(byCreation).map(clone);
  }
  async update(gateway: StorageGatewayState) {
    if (this.store().storageGateways.has(gateway.id)) this.store().storageGateways.set(gateway.id, clone(gateway));
  }
  async delete(id: string) {
    this.store().storageGateways.delete(id);
  }
  async deleteForNode(nodeId: string) {
    purgeWhere(this.store().storageGateways, (g) => g.node_id === nodeId, Number.MAX_SAFE_INTEGER);
  }
}

class InMemoryUserCredentialRepository implements UserCredentialRepository {
  constructor(private readonly store: () => Store) {}
  async add(credential: UserCredentialState) {
    const all = this.store().userCredentials;
    if ([...all.values()].some((c) => c.storage_gateway_id === credential.storage_gateway_id && c.identity_id === credential.identity_id)) return false;
    all.set(credential.id, clone(credential));
    return true;
  }
  async findById(id: string) {
    const credential = this.store().userCredentials.get(id);
    return credential ? clone(credential) : null;
  }
  async listForNode(nodeId: string, storageGatewayId?: string) {
    return [...this.store().userCredentials.values()].filter((c) => c.node_id === nodeId && (storageGatewayId === undefined || c.storage_gateway_id === storageGatewayId)).sort(byCreation).map(clone);
  }
  async update(credential: UserCredentialState) {
    if (this.store().userCredentials.has(credential.id)) this.store().userCredentials.set(credential.id, clone(credential));
  }
  async delete(id: string) {
    this.store().userCredentials.delete(id);
  }
  async deleteForNode(nodeId: string) {
    purgeWhere(this.store().userCredentials, (c) => c.node_id === nodeId, Number.MAX_SAFE_INTEGER);
  }
}

class InMemoryServiceSettingsRepository implements ServiceSettingsRepository {
  constructor(private readonly store: () => Store) {}
  async maintenance() {
    return this.store().maintenance ? clone(this.store().maintenance) : null;
  }
  async setMaintenance(maintenance: Maintenance | null) {
    this.store().maintenance = maintenance ? clone(maintenance) : null;
  }
  async catalogueVersion() {
    return this.store().catalogueVersion;
  }
  async setCatalogueVersion(version: number) {
    this.store().catalogueVersion = version;
  }
}

/** The in-memory adapters of every port, with all-or-nothing transactions run one at a time. */
export class InMemoryUnitOfWork implements UnitOfWork {
  private store: Store = {
    endpoints: new Map(),
    tombstones: new Map(),
    roles: new Map(),
    accessRules: new Map(),
    pauseRules: new Map(),
    subscriptions: new Map(),
    identities: new Map(),
    groups: new Map(),
    groupMembers: new Set(),
    tokens: new Map(),
    clients: new Map(),
    scopes: new Map(),
    consents: new Map(),
    sessions: new Map(),
    codes: new Map(),
    refreshTokens: new Map(),
    signInFailures: [],
    signingKeys: new Map(),
    maintenance: null,
    catalogueVersion: 0,
    nodes: new Map(),
    nodeCallKeys: new Map(),
    storageGateways: new Map(),
    userCredentials: new Map(),
    ...emptyTaskMaps(),
  };
  private queue: Promise<unknown> = Promise.resolve();
  readonly repositories: Repositories;

  constructor() {
    const store = () => this.store;
    this.repositories = {
      endpoints: new InMemoryEndpointRepository(store),
      roles: new InMemoryRoleRepository(store),
      accessRules: new InMemoryAccessRuleRepository(store),
      pauseRules: new InMemoryPauseRuleRepository(store),
      subscriptions: new InMemorySubscriptionRepository(store),
      identities: new InMemoryIdentityRepository(store),
      groups: new InMemoryGroupRepository(store),
      accessTokens: new InMemoryAccessTokenRepository(store),
      clients: new InMemoryClientRepository(store),
      scopes: new InMemoryScopeRepository(store),
      consents: new InMemoryConsentRepository(store),
      sessions: new InMemorySessionRepository(store),
      signInFailures: new InMemorySignInFailureRepository(store),
      signingKeys: new InMemorySigningKeyRepository(store),
      authorizationCodes: new InMemoryAuthorizationCodeRepository(store),
      refreshTokens: new InMemoryRefreshTokenRepository(store),
      settings: new InMemoryServiceSettingsRepository(store),
      tasks: new InMemoryTaskRepository(store),
      nodes: new InMemoryNodeRepository(store),
      storageGateways: new InMemoryStorageGatewayRepository(store),
      userCredentials: new InMemoryUserCredentialRepository(store),
    };
  }

  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const run = async () => {
      const before = clone(this.store);
      try {
        return await work(this.repositories);
      } catch (error) {
        this.store = before;
        throw error;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
