import type { StorageGatewayRepository, StorageGatewayState, UserCredentialRepository, UserCredentialState } from '@xfer/core';
import type { EntityManager } from 'typeorm';
import { StorageGatewaySchema, UserCredentialSchema, type StorageGatewayRecord, type UserCredentialRecord } from '../records/schemas';
import { fromTime, toTime, uniqueViolation } from './mapping';

/** A node's storage gateways and user credentials (its GCS Manager's), as rows. */

const gatewayFromRecord = (r: StorageGatewayRecord): StorageGatewayState => ({ ...r, settings: JSON.parse(r.settings) as StorageGatewayState['settings'], created_at: fromTime(r.created_at) });
const gatewayToRecord = (g: StorageGatewayState): StorageGatewayRecord => ({ ...g, settings: JSON.stringify(g.settings), created_at: toTime(g.created_at) });
const credentialFromRecord = (r: UserCredentialRecord): UserCredentialState => ({ ...r, policies: JSON.parse(r.policies) as UserCredentialState['policies'], created_at: fromTime(r.created_at) });
const credentialToRecord = (c: UserCredentialState): UserCredentialRecord => ({ ...c, policies: JSON.stringify(c.policies), created_at: toTime(c.created_at) });
const OLDEST_FIRST = { created_at: 'ASC', id: 'ASC' } as const;

export class TypeormStorageGatewayRepository implements StorageGatewayRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(gateway: StorageGatewayState) {
    await this.manager.insert(StorageGatewaySchema, gatewayToRecord(gateway));
  }
  async findById(id: string) {
    const record = await this.manager.findOneBy(StorageGatewaySchema, { id });
    return record ? gatewayFromRecord(record) : null;
  }
  async listForNode(nodeId: string) {
    return (await this.manager.find(StorageGatewaySchema, { where: { node_id: nodeId }, order: OLDEST_FIRST })).map(gatewayFromRecord);
  }
  async update(gateway: StorageGatewayState) {
    const { id, ...fields } = gatewayToRecord(gateway);
    await this.manager.update(StorageGatewaySchema, { id }, fields);
  }
  async delete(id: string) {
    await this.manager.delete(StorageGatewaySchema, { id });
  }
  async deleteForNode(nodeId: string) {
    await this.manager.delete(StorageGatewaySchema, { node_id: nodeId });
  }
}

export class TypeormUserCredentialRepository implements UserCredentialRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(credential: UserCredentialState) {
    // looked for first: a failed insert would end a Postgres transaction; the unique index settles a race
    if (await this.manager.existsBy(UserCredentialSchema, { storage_gateway_id: credential.storage_gateway_id, identity_id: credential.identity_id })) return false;
    try {
      await this.manager.insert(UserCredentialSchema, credentialToRecord(credential));
      return true;
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      return false;
    }
  }
  async findById(id: string) {
    const record = await this.manager.findOneBy(UserCredentialSchema, { id });
    return record ? credentialFromRecord(record) : null;
  }
  async listForNode(nodeId: string, storageGatewayId?: string) {
    const where = storageGatewayId === undefined ? { node_id: nodeId } : { node_id: nodeId, storage_gateway_id: storageGatewayId };
    return (await this.manager.find(UserCredentialSchema, { where, order: OLDEST_FIRST })).map(credentialFromRecord);
  }
  async update(credential: UserCredentialState) {
    const { id, ...fields } = credentialToRecord(credential);
    await this.manager.update(UserCredentialSchema, { id }, fields);
  }
  async delete(id: string) {
    await this.manager.delete(UserCredentialSchema, { id });
  }
  async deleteForNode(nodeId: string) {
    await this.manager.delete(UserCredentialSchema, { node_id: nodeId });
  }
}
