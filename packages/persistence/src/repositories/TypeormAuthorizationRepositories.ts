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
} from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import { ClientSchema, ConsentSchema, ScopeSchema, SessionSchema, type ClientRecord, type ConsentRecord } from '../records/schemas';
import { bool, fromTime, fromTimeOrNull, toTime, toTimeOrNull, uniqueViolation } from './mapping';

const clientFromRecord = (r: ClientRecord): ClientState => ({
  ...r,
  branding: JSON.parse(r.branding),
  redirect_uris: JSON.parse(r.redirect_uris),
  public_client: bool(r.public_client),
  created_at: fromTime(r.created_at),
});

export class TypeormClientRepository implements ClientRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(client: ClientState) {
    await this.manager.insert(ClientSchema, {
      ...client,
      branding: JSON.stringify(client.branding),
      redirect_uris: JSON.stringify(client.redirect_uris),
      created_at: toTime(client.created_at),
    });
  }
  async findById(id: string) {
    const r = await this.manager.findOneBy(ClientSchema, { id });
    return r ? clientFromRecord(r) : null;
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
}

export class TypeormScopeRepository implements ScopeRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(scope: ScopeState) {
    try {
      await this.manager.insert(ScopeSchema, { ...scope, created_at: toTime(scope.created_at) });
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError(`Scope '${scope.name}' already exists`);
    }
  }
  async findByName(name: string) {
    const r = await this.manager.findOneBy(ScopeSchema, { name });
    return r ? { ...r, created_at: fromTime(r.created_at) } : null;
  }
  async findByIds(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const records = await this.manager.findBy(ScopeSchema, { id: In([...ids]) });
    return records.map((r) => ({ ...r, created_at: fromTime(r.created_at) }));
  }
  async list() {
    return (await this.manager.find(ScopeSchema, { order: { name: 'ASC' } })).map((r) => ({ ...r, created_at: fromTime(r.created_at) }));
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
    let parentPath: number[] = [];
    if (input.parent_id !== null) {
      const parent = await this.manager.findOneBy(ConsentSchema, { id: input.parent_id });
      if (!parent) throw new ConflictError(`No consent ${input.parent_id} to depend on`);
      parentPath = JSON.parse(parent.dependency_path);
    }
    const { parent_id: _parent, ...rest } = input;
    const result = await this.manager.insert(ConsentSchema, {
      ...rest,
      dependency_path: '[]',
      created: toTime(rest.created),
      updated: toTime(rest.updated),
      last_used: toTimeOrNull(rest.last_used),
    });
    const id = Number(result.identifiers[0].id);
    const dependency_path = [...parentPath, id];
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
  async revokeTree(id: number, at: Date) {
    const root = await this.findById(id);
    if (!root) return;
    const tree = (await this.listForIdentities([root.identity_id])).filter((c) => c.dependency_path.includes(id));
    await this.manager.update(ConsentSchema, { id: In(tree.map((c) => c.id)) }, { status: 'revoked', updated: toTime(at) });
  }
}

export class TypeormSessionRepository implements SessionRepository {
  constructor(private readonly manager: EntityManager) {}
  async add(session: SessionState) {
    await this.manager.insert(SessionSchema, { ...session, created_at: toTime(session.created_at), expires_at: toTime(session.expires_at) });
  }
  async findByHash(hash: string) {
    const r = await this.manager.findOneBy(SessionSchema, { id_hash: hash });
    return r ? { ...r, created_at: fromTime(r.created_at), expires_at: fromTime(r.expires_at) } : null;
  }
  async delete(hash: string) {
    await this.manager.delete(SessionSchema, { id_hash: hash });
  }
}
