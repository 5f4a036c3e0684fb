import {
  ConcurrentModificationError,
  ConflictError,
  endpointConflicts,
  type Endpoint,
  type EndpointCriteria,
  type EndpointRepository,
  type EndpointState,
  type ReadOptions,
  type SearchHit,
  type ShareCursor,
  type Tombstone,
} from '@xfer/core';
import { In, type EntityManager } from 'typeorm';
import type { EndpointSearcher } from '../engine/Engine';
import { insertSql, type Sql } from '../engine/Sql';
import { EndpointSchema, TombstoneSchema } from '../records/schemas';
import { endpointFromRecord, endpointToRecord, groupWithRoles, SELECT_WITH_ROLES, type EndpointRow } from './endpointRows';
import { fromTime, toTime, uniqueViolation } from './mapping';

export { endpointFromRecord, endpointToRecord };

const ENDPOINT_COLUMNS = Object.keys(EndpointSchema.options.columns);
const UPDATED_COLUMNS = ENDPOINT_COLUMNS.filter((c) => c !== 'id');
const INSERT_ENDPOINT = insertSql('endpoints', ENDPOINT_COLUMNS);
const UPDATE_ENDPOINT = `UPDATE endpoints SET ${UPDATED_COLUMNS.map((c) => `"${c}" = ?`).join(', ')} WHERE id = ? AND version = ?`;

export class TypeormEndpointRepository implements EndpointRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly sql: Sql,
    private readonly searcher: EndpointSearcher,
  ) {}

  async findWithRolesOf(key: { id: string } | { canonical_name: string }, principalIds: readonly string[], options: ReadOptions = {}) {
    const column = 'id' in key ? 'id' : 'canonical_name';
    const value = 'id' in key ? key.id : key.canonical_name;
    const lock = options.forUpdate ? this.sql.forUpdateOf('e') : '';
    const read = options.forUpdate ? this.sql.rows.bind(this.sql) : this.sql.cachedRows.bind(this.sql);
    const rows = await read<EndpointRow>(
      `${SELECT_WITH_ROLES} FROM endpoints e LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)}) WHERE e.${column} = ?${lock}`,
      [...principalIds, value],
    );
    return groupWithRoles(rows)[0] ?? null;
  }

  async listSharesHeldBy(hostId: string, holder: { identityIds: readonly string[]; principalIds: readonly string[]; roles: readonly string[] }) {
    const { identityIds, principalIds, roles } = holder;
    // Driven by the holder's own rows on this host (their roles there, their shares there), never by
    // a scan of the host's shares: CROSS JOIN keeps SQLite's planner on that order.
    const rows = await this.sql.rows<EndpointRow>(
      `${SELECT_WITH_ROLES}
       FROM (SELECT x.endpoint_id AS id FROM role_assignments x
             WHERE x.principal_id IN (${this.sql.list(principalIds)}) AND x.host_endpoint_id = ? AND x.role IN (${this.sql.list(roles)})
             UNION SELECT o.id FROM endpoints o WHERE o.owner_id IN (${this.sql.list(identityIds)}) AND o.host_endpoint_id = ?) h
       CROSS JOIN endpoints e
       LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)})
       WHERE e.id = h.id AND e.host_endpoint_id = ?
       ORDER BY e.created_at, e.id`,
      [...principalIds, hostId, ...roles, ...identityIds, hostId, ...principalIds, hostId],
    );
    return groupWithRoles(rows);
  }

  search(criteria: EndpointCriteria): Promise<SearchHit[]> {
    return this.searcher.search(criteria);
  }

  async listSharesOfHost(hostId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    return this.pageWithRoles('host_endpoint_id', hostId, principalIds, page);
  }

  async listCollectionsOfNode(nodeId: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    return this.pageWithRoles('gcs_endpoint_id', nodeId, principalIds, page);
  }

  /** A page of the endpoints whose `column` is `value`, in (created_at, id) order: their ids first (by the column's index), then each with the caller's roles. */
  private async pageWithRoles(column: 'host_endpoint_id' | 'gcs_endpoint_id', value: string, principalIds: readonly string[], page: { after: ShareCursor | null; limit: number }) {
    const after = page.after === null ? '' : 'AND (s.created_at > ? OR (s.created_at = ? AND s.id > ?))';
    const cursor = page.after === null ? [] : [toTime(page.after.createdAt), toTime(page.after.createdAt), page.after.id];
    const rows = await this.sql.rows<EndpointRow>(
      `${SELECT_WITH_ROLES}
       FROM (SELECT s.id FROM endpoints s WHERE s.${column} = ? ${after} ORDER BY s.created_at, s.id LIMIT ?) h
       CROSS JOIN endpoints e
       LEFT JOIN role_assignments r ON r.endpoint_id = e.id AND r.principal_id IN (${this.sql.list(principalIds)})
       WHERE e.id = h.id
       ORDER BY e.created_at, e.id`,
      [value, ...cursor, page.limit, ...principalIds],
    );
    return groupWithRoles(rows);
  }

  async findById(id: string) {
    const record = await this.manager.findOneBy(EndpointSchema, { id });
    return record ? endpointFromRecord(record) : null;
  }

  async findByCanonicalName(canonicalName: string) {
    const record = await this.manager.findOneBy(EndpointSchema, { canonical_name: canonicalName });
    return record ? endpointFromRecord(record) : null;
  }

  async findTombstone(key: { id: string } | { canonical_name: string }): Promise<Tombstone | null> {
    const record = await this.manager.findOne(TombstoneSchema, { where: key, order: { deleted_at: 'DESC' } });
    return record ? { ...record, deleted_at: fromTime(record.deleted_at) } : null;
  }

  async insert(endpoint: Endpoint) {
    const state = endpoint.toPrimitives();
    const record = endpointToRecord(state) as unknown as Record<string, unknown>;
    await this.translateConflicts(state, () => this.sql.run(INSERT_ENDPOINT, ENDPOINT_COLUMNS.map((c) => record[c])));
  }

  async update(endpoint: Endpoint) {
    const expected = endpoint.version;
    endpoint.nextVersion();
    const state = endpoint.toPrimitives();
    const record = endpointToRecord(state) as unknown as Record<string, unknown>;
    const changed = await this.translateConflicts(state, () =>
      this.sql.run(UPDATE_ENDPOINT, [...UPDATED_COLUMNS.map((c) => record[c]), state.id, expected]),
    );
    if (changed !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${state.id}' was changed by another request`);
    }
  }

  async delete(endpoint: Endpoint, tombstone: Tombstone) {
    const result = await this.manager.delete(EndpointSchema, { id: endpoint.id, version: endpoint.version });
    if (result.affected !== 1) {
      throw new ConcurrentModificationError(`Endpoint '${endpoint.id}' was changed by another request`);
    }
    await this.manager.insert(TombstoneSchema, { ...tombstone, deleted_at: toTime(tombstone.deleted_at) });
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
