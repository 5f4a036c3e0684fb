import type {
  AccessTokenRepository,
  AccessTokenState,
  GroupRepository,
  GroupState,
  IdentityRepository,
  IdentityState,
  IdentityStatus,
} from '@xfer/core';
import { ConflictError } from '@xfer/core';
import { In, IsNull, Like, type EntityManager } from 'typeorm';
import { AccessTokenSchema, GroupMemberSchema, GroupSchema, IdentitySchema, type AccessTokenRecord, type IdentityRecord } from '../records/schemas';
import { fromTime, fromTimeOrNull, toTime, toTimeOrNull, uniqueViolation } from './mapping';

const identityFromRecord = (r: IdentityRecord): IdentityState => ({
  ...r,
  status: r.status as IdentityStatus,
  linked_at: fromTimeOrNull(r.linked_at),
  created_at: fromTime(r.created_at),
});

export class TypeormIdentityRepository implements IdentityRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(identity: IdentityState) {
    try {
      await this.manager.insert(IdentitySchema, {
        ...identity,
        linked_at: toTimeOrNull(identity.linked_at),
        created_at: toTime(identity.created_at),
      });
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError(`Identity '${identity.username}' already exists`);
    }
  }

  async findById(id: string) {
    const r = await this.manager.findOneBy(IdentitySchema, { id });
    return r ? identityFromRecord(r) : null;
  }

  async findByUsername(username: string) {
    const r = await this.manager.findOneBy(IdentitySchema, { username });
    return r ? identityFromRecord(r) : null;
  }

  async listSet(setId: string) {
    const all = (await this.manager.findBy(IdentitySchema, { set_id: setId })).map(identityFromRecord);
    return all.sort((a, b) =>
      a.id === setId ? -1 : b.id === setId ? 1 : (a.linked_at?.getTime() ?? 0) - (b.linked_at?.getTime() ?? 0),
    );
  }

  async mergeSets(fromSetId: string, toSetId: string, linkedAt: Date) {
    await this.manager.update(IdentitySchema, { set_id: fromSetId }, { set_id: toSetId, linked_at: toTime(linkedAt) });
  }

  async setPasswordHash(id: string, hash: string) {
    await this.manager.update(IdentitySchema, { id }, { password_hash: hash });
  }

  async list() {
    return (await this.manager.find(IdentitySchema, { order: { username: 'ASC' } })).map(identityFromRecord);
  }

  async moveToSet(id: string, setId: string, linkedAt: Date | null) {
    await this.manager.update(IdentitySchema, { id }, { set_id: setId, linked_at: toTimeOrNull(linkedAt) });
  }
}

export class TypeormGroupRepository implements GroupRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(group: GroupState) {
    try {
      await this.manager.insert(GroupSchema, { ...group, created_at: toTime(group.created_at) });
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError(`Group '${group.name}' already exists`);
    }
  }

  async findByName(name: string) {
    const r = await this.manager.findOneBy(GroupSchema, { name });
    return r ? { ...r, created_at: fromTime(r.created_at) } : null;
  }

  async findById(id: string) {
    const r = await this.manager.findOneBy(GroupSchema, { id });
    return r ? { ...r, created_at: fromTime(r.created_at) } : null;
  }

  async addMember(groupId: string, identityId: string) {
    const exists = await this.manager.findOneBy(GroupMemberSchema, { group_id: groupId, identity_id: identityId });
    if (!exists) await this.manager.insert(GroupMemberSchema, { group_id: groupId, identity_id: identityId });
  }

  async removeMember(groupId: string, identityId: string) {
    await this.manager.delete(GroupMemberSchema, { group_id: groupId, identity_id: identityId });
  }

  async list() {
    return (await this.manager.find(GroupSchema, { order: { name: 'ASC' } })).map((r) => ({ ...r, created_at: fromTime(r.created_at) }));
  }

  async memberIds(groupId: string) {
    return (await this.manager.find(GroupMemberSchema, { where: { group_id: groupId }, order: { identity_id: 'ASC' } })).map((m) => m.identity_id);
  }

  async groupIdsOf(identityIds: readonly string[]) {
    if (identityIds.length === 0) return [];
    const links = await this.manager.findBy(GroupMemberSchema, { identity_id: In([...identityIds]) });
    return [...new Set(links.map((l) => l.group_id))].sort();
  }
}

const tokenFromRecord = (r: AccessTokenRecord) => ({
  ...r,
  created_at: fromTime(r.created_at),
  expires_at: fromTimeOrNull(r.expires_at),
  revoked_at: fromTimeOrNull(r.revoked_at),
});

export class TypeormAccessTokenRepository implements AccessTokenRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(token: AccessTokenState) {
    await this.manager.insert(AccessTokenSchema, {
      ...token,
      created_at: toTime(token.created_at),
      expires_at: toTimeOrNull(token.expires_at),
      revoked_at: toTimeOrNull(token.revoked_at),
    });
  }

  async findByHash(hash: string) {
    const r = await this.manager.findOneBy(AccessTokenSchema, { token_hash: hash });
    return r ? tokenFromRecord(r) : null;
  }

  async findByHashPrefix(prefix: string) {
    if (!/^[0-9a-f]{1,64}$/.test(prefix)) return [];
    return (await this.manager.findBy(AccessTokenSchema, { token_hash: Like(`${prefix}%`) })).map(tokenFromRecord);
  }

  async listForIdentity(identityId: string) {
    const records = await this.manager.find(AccessTokenSchema, { where: { identity_id: identityId }, order: { created_at: 'ASC', token_hash: 'ASC' } });
    return records.map(tokenFromRecord);
  }

  async revoke(hash: string, at: Date) {
    await this.manager.update(AccessTokenSchema, { token_hash: hash, revoked_at: IsNull() }, { revoked_at: toTime(at) });
  }
}
