import {
  ConcurrentModificationError,
  ConflictError,
  Endpoint,
  endpointConflicts,
  type EndpointKind,
  type EndpointRepository,
  type EndpointState,
  type NetworkUse,
  type ReadOptions,
  type ServerScheme,
  type Tombstone,
} from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import { EndpointSchema, TombstoneSchema, type EndpointRecord } from '../records/schemas';
import { bool, boolOrNull, fromTime, toTime, uniqueViolation } from './mapping';

export function endpointToRecord(s: EndpointState): EndpointRecord {
  return {
    ...s,
    created_at: toTime(s.created_at),
    custom_network: s.custom_network === null ? null : JSON.stringify(s.custom_network),
    servers: JSON.stringify(s.servers),
  };
}

export function endpointFromRecord(r: EndpointRecord): Endpoint {
  return Endpoint.fromPrimitives({
    ...r,
    kind: r.kind as EndpointKind,
    version: Number(r.version),
    created_at: fromTime(r.created_at),
    public: bool(r.public),
    force_encryption: bool(r.force_encryption),
    disable_verify: bool(r.disable_verify),
    vcp_connected: boolOrNull(r.vcp_connected),
    vcp_paused: boolOrNull(r.vcp_paused),
    local_user_info_available: boolOrNull(r.local_user_info_available),
    network_use: r.network_use as NetworkUse | null,
    custom_network: r.custom_network === null ? null : JSON.parse(r.custom_network),
    servers: (JSON.parse(r.servers) as EndpointState['servers']).map((s) => ({ ...s, scheme: s.scheme as ServerScheme })),
    next_server_id: Number(r.next_server_id),
  });
}

export class TypeormEndpointRepository implements EndpointRepository {
  constructor(private readonly manager: EntityManager) {}

  async findById(id: string, options: ReadOptions = {}) {
    const record = await this.manager.findOne(EndpointSchema, { where: { id }, ...this.lock(options) });
    return record ? endpointFromRecord(record) : null;
  }

  async findByCanonicalName(canonicalName: string, options: ReadOptions = {}) {
    const record = await this.manager.findOne(EndpointSchema, { where: { canonical_name: canonicalName }, ...this.lock(options) });
    return record ? endpointFromRecord(record) : null;
  }

  /** SELECT ... FOR UPDATE on Postgres; SQLite transactions already run one at a time. */
  private lock(options: ReadOptions): { lock?: { mode: 'pessimistic_write' } } {
    return options.forUpdate && this.manager.connection.options.type === 'postgres' ? { lock: { mode: 'pessimistic_write' } } : {};
  }

  async findTombstone(key: { id: string } | { canonical_name: string }): Promise<Tombstone | null> {
    const record = await this.manager.findOne(TombstoneSchema, { where: key, order: { deleted_at: 'DESC' } });
    return record ? { ...record, deleted_at: fromTime(record.deleted_at) } : null;
  }

  async insert(endpoint: Endpoint) {
    const state = endpoint.toPrimitives();
    await this.translateConflicts(state, () => this.manager.insert(EndpointSchema, endpointToRecord(state)));
  }

  async update(endpoint: Endpoint) {
    const expected = endpoint.version;
    endpoint.nextVersion();
    const { id, ...changes } = endpointToRecord(endpoint.toPrimitives());
    const result = await this.translateConflicts(endpoint.toPrimitives(), () =>
      this.manager.update(EndpointSchema, { id, version: expected }, changes),
    );
    if (result.affected !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${id}' was changed by another request`);
    }
  }

  async delete(endpoint: Endpoint, tombstone: Tombstone) {
    const result = await this.manager.delete(EndpointSchema, { id: endpoint.id, version: endpoint.version });
    if (result.affected !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${endpoint.id}' was changed by another request`);
    }
    await this.manager.insert(TombstoneSchema, { ...tombstone, deleted_at: toTime(tombstone.deleted_at) });
  }

  async listSharesOfHost(hostId: string) {
    const records = await this.manager.find(EndpointSchema, {
      where: { host_endpoint_id: hostId },
      order: { created_at: 'ASC', id: 'ASC' },
    });
    return records.map(endpointFromRecord);
  }

  async findByIds(ids: readonly string[]) {
    if (ids.length === 0) return [];
    const records = await this.manager.findBy(EndpointSchema, { id: In([...ids]) });
    const byId = new Map(records.map((r) => [r.id, r]));
    return ids.flatMap((id) => (byId.has(id) ? [endpointFromRecord(byId.get(id)!)] : []));
  }

  private async translateConflicts<T>(state: EndpointState, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const violated = uniqueViolation(error);
      if (violated === null) throw error;
      if (violated.includes('display_name')) throw endpointConflicts.displayName(state.display_name);
      if (violated.includes('canonical_name')) throw endpointConflicts.canonicalName(state.canonical_name);
      throw new ConflictError(`Endpoint '${state.id}' already exists`);
    }
  }
}
