import {
  BadRequestError,
  isVirtualServer,
  type AdministeredNode,
  type EndpointServer,
  type EndpointView,
  type PauseRuleState,
  type ServerState,
  type VirtualServer,
} from '@xfer/core';

import { ENDPOINT_FIELDS, fieldContext, type EndpointField, type FieldContext } from './endpointFields';

/** Aggregates to v0.10 response documents: the hosted service's keys, compatibility keys included. */


export interface ServerDocument {
  DATA_TYPE: 'server';
  id: number;
  hostname: string | null;
  port: number | null;
  scheme: string | null;
  subject: string | null;
  incoming_data_port_start: number | null;
  incoming_data_port_end: number | null;
  outgoing_data_port_start: number | null;
  outgoing_data_port_end: number | null;
  uri: string | null;
  is_connected: boolean | null;
  is_paused: boolean | null;
}

export function serverDocument(server: EndpointServer): ServerDocument {
  return isVirtualServer(server) ? virtualServerDocument(server) : realServerDocument(server);
}

function realServerDocument(server: ServerState): ServerDocument {
  return {
    DATA_TYPE: 'server',
    id: server.id,
    hostname: server.hostname,
    port: server.port,
    scheme: server.scheme,
    subject: server.subject,
    incoming_data_port_start: server.incoming_data_port_start,
    incoming_data_port_end: server.incoming_data_port_end,
    outgoing_data_port_start: server.outgoing_data_port_start,
    outgoing_data_port_end: server.outgoing_data_port_end,
    uri: `${server.scheme}://${server.hostname}:${server.port}`,
    is_connected: null,
    is_paused: null,
  };
}

function virtualServerDocument(server: VirtualServer): ServerDocument {
  return {
    DATA_TYPE: 'server',
    id: server.id,
    hostname: null,
    port: null,
    scheme: null,
    subject: null,
    incoming_data_port_start: null,
    incoming_data_port_end: null,
    outgoing_data_port_start: null,
    outgoing_data_port_end: null,
    uri: null,
    is_connected: server.connected,
    is_paused: server.paused,
  };
}

/**
 * The endpoint document: every field of spec 2.1 (null when unset, because clients index keys
 * directly), the compatibility keys of compat-notes, and `DATA`, the server documents; the fields
 * as endpointFields.ts declares them.
 */
export function endpointDocument(view: EndpointView, inUse: ReadonlySet<string> | null = null): EndpointDocument {
  const document = renderFields(fieldContext(view, inUse?.has(view.endpoint.id) ?? false));
  document.DATA = view.endpoint.servers.map(serverDocument);
  return document as EndpointDocument;
}

/**
 * The fields of the table as one object literal, made once: every document then has the same shape
 * from its first key (fast properties, JSON.stringify's fast path). Filling a fresh object key by
 * key leaves seventy keys in a slow dictionary, and a search of 25 hits took 0.19 ms longer to
 * render (bench/NOTES.md, issue 50). The names are the table's own constants, quoted as JSON.
 */
const renderFields = compileFieldRenderer(ENDPOINT_FIELDS);

function compileFieldRenderer(fields: readonly EndpointField[]): (context: FieldContext) => Record<string, unknown> {
  const literal = fields.map((field, i) => `${JSON.stringify(field.name)}: values[${i}](context), `).join('');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the constant field table, never from input
  const make = new Function('values', `return (context) => ({ ${literal}DATA: null });`) as (values: EndpointField['value'][]) => (context: FieldContext) => Record<string, unknown>;
  return make(fields.map((field) => field.value));
}

export type EndpointDocument = Record<string, unknown> & { DATA_TYPE: 'endpoint'; id: string; DATA: ServerDocument[] };

/** Every key of an endpoint document, in document order. */
export const ENDPOINT_DOCUMENT_KEYS: readonly string[] = Object.freeze([...ENDPOINT_FIELDS.map((f) => f.name), 'DATA']);

/**
 * The `fields` query parameter: known document keys, `server` for the `DATA` list.
 * Null when every field is wanted.
 */
export function fieldSelection(fields: unknown): Set<string> | null {
  if (fields === undefined) return null;
  if (typeof fields !== 'string') throw new BadRequestError("Invalid 'fields': give one comma-separated list");
  const names = fields.split(',').map((f) => f.trim()).filter((f) => f !== '');
  const unknown = names.filter((f) => f !== 'server' && (f === 'DATA' || !ENDPOINT_DOCUMENT_KEYS.includes(f)));
  if (unknown.length > 0) throw new BadRequestError(`Unknown field(s) in 'fields': ${unknown.join(', ')}`);
  return new Set(names.map((f) => (f === 'server' ? 'DATA' : f)));
}

/** Keeps the selected keys; DATA_TYPE always stays. */
export function selectFields<T extends Record<string, unknown>>(document: T, selection: Set<string> | null): Partial<T> {
  if (selection === null) return document;
  const result: Record<string, unknown> = { DATA_TYPE: document.DATA_TYPE };
  for (const key of ENDPOINT_DOCUMENT_KEYS) if (selection.has(key)) result[key] = document[key];
  return result as Partial<T>;
}

/** Transfer's timestamp form: ISO 8601 with a space instead of `T`, UTC offset spelled out. */
export function formatTransferTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}+00:00`;
}

/** A data node as the administrators of the endpoints it serves see it (xfer's own document). */
export function dataNodeDocument(node: AdministeredNode) {
  return {
    DATA_TYPE: 'data_node' as const,
    id: node.id,
    name: node.name,
    url: node.url,
    last_contact: node.lastContact ? formatTransferTime(node.lastContact) : null,
    endpoints: node.endpoints.map((endpoint) => ({ id: endpoint.id, display_name: endpoint.displayName })),
    // to the administrators of its GCS endpoint: its storage gateways and collections (its Manager's)
    gcs_administrator: node.administered,
    storage_gateways: node.gateways.map((g) => ({ id: g.id, display_name: g.displayName, root: g.root })),
    collections: node.collections.map((c) => ({ id: c.id, display_name: c.displayName, collection_type: c.type, storage_gateway_id: c.storageGatewayId })),
  };
}

/** `pause_rule_limited`: the rule as the affected user sees it, administrator-only fields removed. */
/** A pause rule as its managers see it (the endpoint manager's `pause_rule`, every field). */
export function pauseRuleDocument(rule: PauseRuleState) {
  return {
    DATA_TYPE: 'pause_rule' as const,
    id: rule.id,
    message: rule.message,
    start_time: rule.start_time ? formatTransferTime(rule.start_time) : null,
    endpoint_id: rule.endpoint_id,
    identity_id: rule.identity_id,
    pause_ls: rule.pause_ls,
    pause_mkdir: rule.pause_mkdir,
    pause_rename: rule.pause_rename,
    pause_task_delete: rule.pause_task_delete,
    pause_task_transfer_write: rule.pause_task_transfer_write,
    pause_task_transfer_read: rule.pause_task_transfer_read,
    modified_by: rule.modified_by,
    modified_by_id: rule.modified_by_id,
    created_by_host_manager: rule.created_by_host_manager,
    editable: true,
  };
}

/** The rule as an affected user sees it (`pause_rule_limited`): without the administrator-only fields, not editable. */
export function limitedPauseRuleDocument(rule: PauseRuleState) {
  const { modified_by: _by, modified_by_id: _byId, created_by_host_manager: _host, ...shown } = pauseRuleDocument(rule);
  return { ...shown, DATA_TYPE: 'pause_rule_limited' as const, editable: false };
}
