import {
  ConflictError,
  type ClientRepository,
  type ClientState,
  type ConsentRepository,
  type ConsentState,
  type ConsentStatus,
  type NewConsent,
  type ScopeRepository,
  type ScopeState,
  type SessionRepository,
  type SessionState,
  type SignInFailureRepository,
  type SigningKeyRepository,
  type SigningKeyState,
  type AuthorizationCodeRepository,
  type AuthorizationCodeState,
  type RefreshTokenRepository,
  type RefreshTokenState,
} from '@xfer/core';
import { In, IsNull, MoreThanOrEqual, type EntityManager } from 'typeorm';
import {
  AuthorizationCodeSchema,
  ClientSchema,
  ConsentSchema,
  RefreshTokenSchema,
  ScopeSchema,
  SessionSchema,
  type SessionRecord,
  SignInFailureSchema,
  SigningKeySchema,
  type SigningKeyRecord,
  type AuthorizationCodeRecord,
  type ClientRecord,
  type ConsentRecord,
  type RefreshTokenRecord,
  type ScopeRecord,
} from '../records/schemas';
import type { Sql } from '../engine/Sql';
import { scopesFromText, TypeormIdentityRepository } from './TypeormIdentityRepositories';
import { bool, fromTime, fromTimeOrNull, purgeBefore, toTime, toTimeOrNull, uniqueViolation } from './mapping';

const clientFromRecord = (r: ClientRecord): ClientState => ({
  ...r,
  branding: JSON.parse(r.branding),
  redirect_uris: JSON.parse(r.redirect_uris),
  public_client: bool(r.public_client),
  created_at: fromTime(r.created_at),
});

export class TypeormClientRepository implements ClientRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}
  async add(client: ClientState) {
    await this.manager.insert(ClientSchema, {
      ...client,
      branding: JSON.stringify(client.branding),
      redirect_uris: JSON.stringify(client.redirect_uris),
      created_at: toTime(client.created_at),
    });
  }
  async findById(id: string) {
    // every introspection, token and revocation request authenticates its client: remembered until anything changes
    return this.sql.cached(`client ${id}`, async () => {
      const r = await this.manager.findOneBy(ClientSchema, { id });
      return r ? clientFromRecord(r) : null;
    });
  }
  async findByIds(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const records = await this.manager.findBy(ClientSchema, { id: In([...ids]) });
    const byId = new Map(records.map((r) => [r.id, r]));
    return ids.flatMap((id) => (byId.has(id) ? [clientFromRecord(byId.get(id)!)] : []));
  }
  async list() {
    return (await this.manager.find(ClientSchema, { order: { display_name: 'ASC' } })).map(clientFromRecord);
  }
  async update(client: ClientState) {
    await this.manager.update(ClientSchema, { id: client.id }, { display_name: client.display_name, redirect_uris: JSON.stringify(client.redirect_uris), secret_hash: client.secret_hash });
  }
  async delete(id: string) {
    await this.manager.delete(ClientSchema, { id });
  }
}

const scopeFromRecord = (r: ScopeRecord): ScopeState => ({ ...r, dependent_scope_ids: JSON.parse(r.dependent_scope_ids), created_at: fromTime(r.created_at) });

export class TypeormScopeRepository implements ScopeRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(scope: ScopeState) {
    try {
      await this.manager.insert(ScopeSchema, { ...scope, dependent_scope_ids: JSON.stringify(scope.dependent_scope_ids), created_at: toTime(scope.created_at) });
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError(`Scope '${scope.name}' already exists`);
    }
  }
  async findByName(name: string) {
    const r = await this.manager.findOneBy(ScopeSchema, { name });
    return r ? scopeFromRecord(r) : null;
  }
  async findByIds(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const records = await this.manager.findBy(ScopeSchema, { id: In([...ids]) });
    return records.map(scopeFromRecord);
  }
  async list() {
    return (await this.manager.find(ScopeSchema, { order: { name: 'ASC' } })).map(scopeFromRecord);
  }
}

const consentFromRecord = (r: ConsentRecord): ConsentState => ({
  ...r,
  id: Number(r.id),
  dependency_path: JSON.parse(r.dependency_path),
  created: fromTime(r.created),
  updated: fromTime(r.updated),
  last_used: fromTimeOrNull(r.last_used),
  status: r.status as ConsentStatus,
});

export class TypeormConsentRepository implements ConsentRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(input: NewConsent) {
    const { parent_path, ...rest } = input;
    const result = await this.manager.insert(ConsentSchema, {
      ...rest,
      dependency_path: '[]',
      created: toTime(rest.created),
      updated: toTime(rest.updated),
      last_used: toTimeOrNull(rest.last_used),
    });
    const id = Number(result.identifiers[0].id);
    const dependency_path = [...parent_path, id];
    await this.manager.update(ConsentSchema, { id }, { dependency_path: JSON.stringify(dependency_path) });
    return { ...rest, id, dependency_path };
  }
  async listForIdentities(identityIds: readonly string[]) {
    if (identityIds.length === 0) return [];
    const records = await this.manager.find(ConsentSchema, { where: { identity_id: In([...identityIds]) }, order: { id: 'ASC' } });
    return records.map(consentFromRecord);
  }
  async findById(id: number) {
    const r = await this.manager.findOneBy(ConsentSchema, { id });
    return r ? consentFromRecord(r) : null;
  }
  async update(consents: readonly ConsentState[]) {
    for (const c of consents) {
      await this.manager.update(ConsentSchema, { id: c.id }, { status: c.status, updated: toTime(c.updated), last_used: toTimeOrNull(c.last_used) });
    }
  }
}

export class TypeormSessionRepository implements SessionRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}
  async add(session: SessionState) {
    await this.manager.insert(SessionSchema, { ...session, created_at: toTime(session.created_at), expires_at: toTime(session.expires_at) });
  }
  async findByHash(hash: string) {
    const [r] = await this.sql.rows<SessionRecord>('SELECT * FROM sessions WHERE id_hash = ?', [hash]);
    return r ? { ...r, created_at: fromTime(r.created_at), expires_at: fromTime(r.expires_at) } : null;
  }
  async findHolder(hash: string) {
    // every signed-in page: remembered until anything changes (migration SessionNotifications
    // tells other instances of a session that ended), so a page reads nothing on a repeat
    return this.sql.cached(`session ${hash}`, async () => {
      const session = await this.findByHash(hash);
      const identities = new TypeormIdentityRepository(this.manager, this.sql);
      const identity = session && (await identities.findById(session.identity_id));
      return session && identity ? { session, identity, set: await identities.listSet(identity.set_id) } : null;
    });
  }
  async delete(hash: string) {
    await this.manager.delete(SessionSchema, { id_hash: hash });
  }
  async deleteForIdentity(identityId: string) {
    await this.manager.delete(SessionSchema, { identity_id: identityId });
  }
  async purgeExpired(before: Date, limit: number) {
    return purgeBefore(this.manager, SessionSchema, 'id_hash', 'expires_at', before, limit);
  }
}

const keyFromRecord = (r: SigningKeyRecord): SigningKeyState => ({ ...r, public_jwk: JSON.parse(r.public_jwk), created_at: fromTime(r.created_at), retired_at: fromTimeOrNull(r.retired_at) });

export class TypeormSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(key: SigningKeyState) {
    await this.manager.insert(SigningKeySchema, { ...key, public_jwk: JSON.stringify(key.public_jwk), created_at: toTime(key.created_at), retired_at: toTimeOrNull(key.retired_at) });
  }
  async list() {
    return (await this.manager.find(SigningKeySchema, { order: { created_at: 'ASC', kid: 'ASC' } })).map(keyFromRecord);
  }
  async update(key: SigningKeyState) {
    await this.manager.update(SigningKeySchema, { kid: key.kid }, { retired_at: toTimeOrNull(key.retired_at) });
  }
  async delete(kid: string) {
    await this.manager.delete(SigningKeySchema, { kid });
  }
}

export class TypeormSignInFailureRepository implements SignInFailureRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(keyHashes: readonly string[], at: Date) {
    if (keyHashes.length > 0) await this.manager.insert(SignInFailureSchema, keyHashes.map((key_hash) => ({ key_hash, at: toTime(at) })));
  }
  async countSince(keyHash: string, since: Date) {
    return this.manager.countBy(SignInFailureSchema, { key_hash: keyHash, at: MoreThanOrEqual(toTime(since)) });
  }
  async clear(keyHash: string) {
    await this.manager.delete(SignInFailureSchema, { key_hash: keyHash });
  }
  async purgeBefore(before: Date, limit: number) {
    return purgeBefore(this.manager, SignInFailureSchema, 'id', 'at', before, limit);
  }
}

const codeFromRecord = (r: AuthorizationCodeRecord): AuthorizationCodeState => ({
  ...r,
  scopes: scopesFromText(r.scopes),
  created_at: fromTime(r.created_at),
  expires_at: fromTime(r.expires_at),
  used_at: fromTimeOrNull(r.used_at),
  auth_time: fromTimeOrNull(r.auth_time),
});

export class TypeormAuthorizationCodeRepository implements AuthorizationCodeRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(code: AuthorizationCodeState) {
    await this.manager.insert(AuthorizationCodeSchema, {
      ...code,
      scopes: code.scopes.join(' '),
      created_at: toTime(code.created_at),
      expires_at: toTime(code.expires_at),
      used_at: toTimeOrNull(code.used_at),
      auth_time: toTimeOrNull(code.auth_time),
    });
  }
  async findByHash(hash: string) {
    const r = await this.manager.findOneBy(AuthorizationCodeSchema, { code_hash: hash });
    return r ? codeFromRecord(r) : null;
  }
  async markUsed(hash: string, at: Date) {
    // one conditional UPDATE: of two racing exchanges, only one sees a row change
    const result = await this.manager.update(AuthorizationCodeSchema, { code_hash: hash, used_at: IsNull() }, { used_at: toTime(at) });
    return (result.affected ?? 0) === 1;
  }
  async purgeExpired(before: Date, limit: number) {
    return purgeBefore(this.manager, AuthorizationCodeSchema, 'code_hash', 'expires_at', before, limit);
  }
}

const refreshFromRecord = (r: RefreshTokenRecord): RefreshTokenState => ({
  ...r,
  scopes: scopesFromText(r.scopes),
  created_at: fromTime(r.created_at),
  revoked_at: fromTimeOrNull(r.revoked_at),
  auth_time: fromTimeOrNull(r.auth_time),
});

export class TypeormRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(token: RefreshTokenState) {
    await this.manager.insert(RefreshTokenSchema, {
      ...token,
      scopes: token.scopes.join(' '),
      created_at: toTime(token.created_at),
      revoked_at: toTimeOrNull(token.revoked_at),
      auth_time: toTimeOrNull(token.auth_time),
    });
  }
  async findByHash(hash: string) {
    const r = await this.manager.findOneBy(RefreshTokenSchema, { token_hash: hash });
    return r ? refreshFromRecord(r) : null;
  }
  async revoke(hash: string, at: Date) {
    const result = await this.manager.update(RefreshTokenSchema, { token_hash: hash, revoked_at: IsNull() }, { revoked_at: toTime(at) });
    return (result.affected ?? 0) === 1;
  }
  async revokeIssuedForCode(codeHash: string, at: Date) {
    const live = await this.manager.findBy(RefreshTokenSchema, { authorization_code_hash: codeHash, revoked_at: IsNull() });
    if (live.length === 0) return [];
    await this.manager.update(RefreshTokenSchema, { token_hash: In(live.map((t) => t.token_hash)), revoked_at: IsNull() }, { revoked_at: toTime(at) });
    return live.map((t) => t.token_hash);
  }
  async revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date) {
    if (identityIds.length === 0) return 0;
    const live = { identity_id: In([...identityIds]), revoked_at: IsNull() };
    const issued = await this.manager.update(RefreshTokenSchema, { ...live, client_id: clientId }, { revoked_at: toTime(at) });
    const dependent = await this.manager.update(RefreshTokenSchema, { ...live, consent_client_id: clientId }, { revoked_at: toTime(at) });
    return (issued.affected ?? 0) + (dependent.affected ?? 0);
  }
  async revokeForClient(clientId: string, at: Date) {
    return (await this.manager.update(RefreshTokenSchema, { client_id: clientId, revoked_at: IsNull() }, { revoked_at: toTime(at) })).affected ?? 0;
  }
}
