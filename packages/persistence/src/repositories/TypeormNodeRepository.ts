import type { NodeCallKey, NodeRepository, NodeRoot, NodeState } from '@xfer/core';
import { LessThan, Like, MoreThanOrEqual, type EntityManager } from 'typeorm';
import { EndpointSchema, NodeCallKeySchema, NodeSchema, type NodeRecord } from '../records/schemas';
import { fromTime, fromTimeOrNull, toTime, toTimeOrNull, uniqueViolation } from './mapping';

const toRecord = (node: NodeState): NodeRecord => ({
  id: node.id,
  name: node.name,
  name_key: node.name.toLowerCase(),
  url: node.url,
  secret_hash: node.secretHash,
  created_at: toTime(node.createdAt),
  last_contact: toTimeOrNull(node.lastContact),
});

const fromRecord = (r: NodeRecord): NodeState => ({ id: r.id, name: r.name, url: r.url, secretHash: r.secret_hash, createdAt: fromTime(r.created_at), lastContact: fromTimeOrNull(r.last_contact) });

export class TypeormNodeRepository implements NodeRepository {
  constructor(private readonly manager: EntityManager) {}

  async add(node: NodeState): Promise<boolean> {
    try {
      await this.manager.insert(NodeSchema, toRecord(node));
      return true;
    } catch (error) {
      if (uniqueViolation(error) === null) throw error;
      return false;
    }
  }

  async findById(id: string): Promise<NodeState | null> {
    const record = await this.manager.findOneBy(NodeSchema, { id });
    return record ? fromRecord(record) : null;
  }

  async findByName(name: string): Promise<NodeState | null> {
    const record = await this.manager.findOneBy(NodeSchema, { name_key: name.toLowerCase() });
    return record ? fromRecord(record) : null;
  }

  async list(): Promise<NodeState[]> {
    return (await this.manager.find(NodeSchema, { order: { name_key: 'ASC' } })).map(fromRecord);
  }

  async saveSecretHash(id: string, secretHash: string): Promise<boolean> {
    return ((await this.manager.update(NodeSchema, { id }, { secret_hash: secretHash })).affected ?? 0) > 0;
  }

  async saveLastContact(id: string, at: Date): Promise<void> {
    await this.manager.update(NodeSchema, { id }, { last_contact: toTime(at) });
  }

  async delete(id: string): Promise<boolean> {
    return ((await this.manager.delete(NodeSchema, { id })).affected ?? 0) > 0;
  }

  async servedRoots(nodeId: string): Promise<NodeRoot[]> {
    // the attachment is JSON text: the rows that name the node, then each checked whole
    const rows = await this.manager.find(EndpointSchema, { select: { id: true, storage: true }, where: { storage: Like(`%${nodeId}%`) }, order: { id: 'ASC' } });
    return rows.flatMap((row) => {
      const storage = row.storage == null ? null : (JSON.parse(row.storage) as { type?: string; node?: string; root?: string });
      return storage?.type === 'node' && storage.node === nodeId && typeof storage.root === 'string' ? [{ endpointId: row.id, root: storage.root }] : [];
    });
  }

  async publishCallKey(key: NodeCallKey, at: Date): Promise<void> {
    await this.manager.upsert(NodeCallKeySchema, { kid: key.kid, public_jwk: key.publicJwk, renewed_at: toTime(at) }, ['kid']);
  }

  async callKeysSince(since: Date): Promise<NodeCallKey[]> {
    const rows = await this.manager.find(NodeCallKeySchema, { where: { renewed_at: MoreThanOrEqual(toTime(since)) }, order: { kid: 'ASC' } });
    return rows.map((row) => ({ kid: row.kid, publicJwk: row.public_jwk }));
  }

  async purgeCallKeysBefore(before: Date): Promise<number> {
    return (await this.manager.delete(NodeCallKeySchema, { renewed_at: LessThan(toTime(before)) })).affected ?? 0;
  }
}
