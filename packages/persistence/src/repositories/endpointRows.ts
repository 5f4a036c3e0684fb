import { Endpoint, type EndpointKind, type EndpointRole, type EndpointState, type EndpointWithRoles, type NetworkSettings, type NetworkUse, type PrincipalType, type ServerScheme } from '@xfer/core';
import { EndpointSchema, type EndpointRecord } from '../records/schemas';
import { literalMaker } from '../engine/objectLiteral';
import { bool, boolOrNull, fromTime, toTime } from './mapping';

/** Endpoints as rows, and rows of endpoints with the caller's roles: what the repository and both engines' searches read. */

export function endpointToRecord(s: EndpointState): EndpointRecord {
  return {
    ...s,
    created_at: toTime(s.created_at),
    custom_network: s.custom_network === null ? null : JSON.stringify(s.custom_network),
    storage: s.storage === null ? null : JSON.stringify(s.storage),
    collection: s.collection === null ? null : JSON.stringify(s.collection),
    servers: JSON.stringify(s.servers),
  };
}

export function endpointFromRecord(r: EndpointRecord): Endpoint {
  return Endpoint.adopt({
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
    subscription_admin_verified: bool(r.subscription_admin_verified),
    network_use: r.network_use as NetworkUse | null,
    custom_network: r.custom_network === null ? null : customNetworkFromJson(r.custom_network),
    // rows written before storage existed have no such column value
    storage: r.storage == null ? null : (JSON.parse(r.storage) as EndpointState['storage']),
    // rows written before GCS endpoints existed have no such column value
    gcs_manager_url: r.gcs_manager_url ?? null,
    gcs_endpoint_id: r.gcs_endpoint_id ?? null,
    collection: r.collection == null ? null : (JSON.parse(r.collection) as EndpointState['collection']),
    servers: (JSON.parse(r.servers) as EndpointState['servers']).map((s) => ({ ...s, scheme: s.scheme as ServerScheme })),
    next_server_id: Number(r.next_server_id),
  });
}

/** Custom network numbers as stored: rows written before 2026-11-26 name the ceilings `min_*` (the spec's older names). */
function customNetworkFromJson(json: string): NetworkSettings {
  const stored = JSON.parse(json) as Partial<NetworkSettings> & { min_concurrency?: number; min_parallelism?: number };
  return {
    max_concurrency: (stored.max_concurrency ?? stored.min_concurrency)!,
    preferred_concurrency: stored.preferred_concurrency!,
    max_parallelism: (stored.max_parallelism ?? stored.min_parallelism)!,
    preferred_parallelism: stored.preferred_parallelism!,
  };
}

/** The caller's role assignment beside an endpoint `e` (LEFT JOINed as `r`). */
export const ROLE_COLUMNS = 'r.id AS r_id, r.role AS r_role, r.principal_type AS r_principal_type, r.principal_id AS r_principal_id, r.created_at AS r_created_at';
export const SELECT_WITH_ROLES = `SELECT e.*, ${ROLE_COLUMNS}`;

export type RoleColumns = { r_id: string | null; r_role: string | null; r_principal_type: string | null; r_principal_id: string | null; r_created_at: string | null };
export type EndpointRow = EndpointRecord & RoleColumns;

/** The endpoint's own columns of a row with roles (a rest pattern leaving the role columns out cost 3% of the event loop under search load). */
const endpointColumnsOf = literalMaker<EndpointRow, EndpointRecord>(Object.keys(EndpointSchema.options.columns), (column) => `from[${JSON.stringify(column)}]`);

/** Rows of endpoints LEFT JOINed with role assignments: one entry per endpoint, in row order. */
export function groupWithRoles(rows: readonly EndpointRow[]): EndpointWithRoles[] {
  return groupRows(rows, (row) => row.id, endpointColumnsOf);
}

export function groupRows<Row extends RoleColumns>(rows: readonly Row[], idOf: (row: Row) => string, recordOf: (row: Row) => EndpointRecord): EndpointWithRoles[] {
  const byId = new Map<string, EndpointWithRoles>();
  for (const row of rows) {
    const id = idOf(row);
    let entry = byId.get(id);
    if (!entry) byId.set(id, (entry = { endpoint: endpointFromRecord(recordOf(row)), assignments: [] }));
    if (row.r_id !== null) {
      entry.assignments.push({
        id: row.r_id,
        endpoint_id: id,
        role: row.r_role as EndpointRole,
        principal_type: row.r_principal_type as PrincipalType,
        principal_id: row.r_principal_id!,
        created_at: fromTime(row.r_created_at!),
      });
    }
  }
  return [...byId.values()];
}
