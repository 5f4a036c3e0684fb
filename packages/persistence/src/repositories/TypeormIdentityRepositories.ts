import type {
  AccessTokenRepository,
  AccessTokenState,
  GroupRepository,
  GroupState,
  IdentityRepository,
  IdentityState,
  IdentityStatus,
} from '@xfer/core';
import { ConflictError, sortIdentitySet } from '@xfer/core';
import { In, IsNull, Like, type EntityManager } from 'typeorm';
import { AccessTokenSchema, GroupMemberSchema, GroupSchema, IdentitySchema, type AccessTokenRecord, type IdentityRecord } from '../records/schemas';
import type { Sql } from '../engine/Sql';
import { fromTime, fromTimeOrNull, purgeBefore, toTime, toTimeOrNull, uniqueViolation } from './mapping';

const identityFromRecord = (r: IdentityRecord): IdentityState => ({
  ...r,
  status: r.status as IdentityStatus,
  linked_at: fromTimeOrNull(r.linked_at),
  created_at: fromTime(r.created_at),
});

const identityToRecord = (identity: IdentityState): IdentityRecord => ({
  ...identity,
  linked_at: toTimeOrNull(identity.linked_at),
  created_at: toTime(identity.created_at),
});

export class TypeormIdentityRepository implements IdentityRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}

  async add(identity: IdentityState) {
    try {
      await this.manager.insert(IdentitySchema, identityToRecord(identity));
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      throw new ConflictError(`Identity '${identity.username}' already exists`);
    }
  }

  // findById and listSet run on every signed-in page: plain prepared reads, no query building
  async findById(id: string) {
    const [r] = await this.sql.rows<IdentityRecord>('SELECT * FROM identities WHERE id = ?', [id]);
    return r ? identityFromRecord(r) : null;
  }

  /** Without regard to case, by the index on lower(username). */
  async findByUsername(username: string) {
    const [r] = await this.sql.rows<IdentityRecord>('SELECT * FROM identities WHERE lower(username) = lower(?)', [username]);
    return r ? identityFromRecord(r) : null;
  }

  async listSet(setId: string) {
    return sortIdentitySet((await this.sql.rows<IdentityRecord>('SELECT * FROM identities WHERE set_id = ?', [setId])).map(identityFromRecord), setId);
  }

  async update(identities: readonly IdentityState[]) {
    for (const identity of identities) {
      const { id, ...row } = identityToRecord(identity);
      await this.manager.update(IdentitySchema, { id }, row);
    }
  }

  async list() {
    return (await this.manager.find(IdentitySchema, { order: { username: 'ASC' } })).map(identityFromRecord);
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

export const scopesFromText = (text: string): string[] => text.split(' ').filter(Boolean);

const tokenFromRecord = (r: AccessTokenRecord): AccessTokenState => ({
  ...r,
  created_at: fromTime(r.created_at),
  expires_at: fromTimeOrNull(r.expires_at),
  revoked_at: fromTimeOrNull(r.revoked_at),
  scopes: scopesFromText(r.scopes),
});

type TokenColumns = { [K in keyof AccessTokenRecord as `t_${K}`]: AccessTokenRecord[K] };
type HolderRow = IdentityRecord & TokenColumns & { g_group_id: string | null };
const TOKEN_COLUMNS: (keyof AccessTokenRecord)[] = ['token_hash', 'identity_id', 'created_at', 'expires_at', 'revoked_at', 'client_id', 'scopes', 'resource_server', 'refresh_token_hash', 'consent_client_id'];

export class TypeormAccessTokenRepository implements AccessTokenRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
  ) {}

  async findHolder(hash: string) {
    // on every request: the holder as made from the rows is remembered, not just the rows
    return this.sql.cached(`holder ${hash}`, () => this.readHolder(hash));
  }

  private async readHolder(hash: string) {
    // token -> its identity -> every identity of that set -> their groups, in one read
    const rows = await this.sql.rows<HolderRow>(
      `SELECT i.*, ${TOKEN_COLUMNS.map((c) => `t.${c} AS t_${c}`).join(', ')}, gm.group_id AS g_group_id
       FROM access_tokens t JOIN identities p ON p.id = t.identity_id JOIN identities i ON i.set_id = p.set_id
       LEFT JOIN group_members gm ON gm.identity_id = i.id
       WHERE t.token_hash = ?`,
      [hash],
    );
    if (rows.length === 0) return null;
    const first = rows[0];
    const identities = new Map<string, IdentityState>();
    const groupIds = new Set<string>();
    for (const row of rows) {
      const record = Object.fromEntries(Object.entries(row).filter(([key]) => !key.startsWith('t_') && key !== 'g_group_id')) as IdentityRecord;
      if (!identities.has(record.id)) identities.set(record.id, identityFromRecord(record));
      if (row.g_group_id !== null) groupIds.add(row.g_group_id);
    }
    const identity = identities.get(first.t_identity_id)!;
    const set = sortIdentitySet([...identities.values()], identity.set_id);
    const token = tokenFromRecord(Object.fromEntries(TOKEN_COLUMNS.map((c) => [c, first[`t_${c}`]])) as unknown as AccessTokenRecord);
    return { token, identity, set, groupIds: [...groupIds].sort() };
  }

  async add(token: AccessTokenState) {
    await this.manager.insert(AccessTokenSchema, {
      ...token,
      scopes: token.scopes.join(' '),
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

  async revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date) {
    if (identityIds.length === 0) return 0;
    const live = { identity_id: In([...identityIds]), revoked_at: IsNull() };
    const issued = await this.manager.update(AccessTokenSchema, { ...live, client_id: clientId }, { revoked_at: toTime(at) });
    const dependent = await this.manager.update(AccessTokenSchema, { ...live, consent_client_id: clientId }, { revoked_at: toTime(at) });
    return (issued.affected ?? 0) + (dependent.affected ?? 0);
  }

  async revokeForClient(clientId: string, at: Date) {
    return (await this.manager.update(AccessTokenSchema, { client_id: clientId, revoked_at: IsNull() }, { revoked_at: toTime(at) })).affected ?? 0;
  }

  async revokeByRefreshToken(refreshTokenHash: string, at: Date) {
    await this.manager.update(AccessTokenSchema, { refresh_token_hash: refreshTokenHash, revoked_at: IsNull() }, { revoked_at: toTime(at) });
  }

  async purgeExpired(before: Date, limit: number) {
    return purgeBefore(this.manager, AccessTokenSchema, 'token_hash', 'expires_at', before, limit);
  }
}
