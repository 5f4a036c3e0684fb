import { BadRequestError } from '../shared/errors';
import { checkHostname, checkInteger, checkText, jsonEqual } from '../shared/text';

export type ServerScheme = 'gsiftp' | 'ftp';
export const SERVER_SCHEMES: readonly ServerScheme[] = ['gsiftp', 'ftp'];
export const DEFAULT_SERVER_PORT = 2811;

export interface ServerState {
  id: number;
  hostname: string;
  port: number;
  scheme: ServerScheme;
  subject: string | null;
  incoming_data_port_start: number | null;
  incoming_data_port_end: number | null;
  outgoing_data_port_start: number | null;
  outgoing_data_port_end: number | null;
}

/** A server document as a client sends it, after the edge checked the types. */
export interface ServerInput {
  DATA_TYPE?: string;
  hostname?: string | null;
  port?: number | null;
  scheme?: string | null;
  subject?: string | null;
  incoming_data_port_start?: number | null;
  incoming_data_port_end?: number | null;
  outgoing_data_port_start?: number | null;
  outgoing_data_port_end?: number | null;
  id?: unknown;
  uri?: unknown;
  is_connected?: unknown;
  is_paused?: unknown;
}

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

/** Derived or status fields: never taken from a client. */
const DERIVED_SERVER_FIELDS = ['id', 'uri', 'is_connected', 'is_paused'] as const;
/** The only fields an update may change (spec 4.2, rule 10). */
const UPDATABLE_SERVER_FIELDS = ['hostname', 'scheme', 'port', 'subject'] as const;

export function serverDocument(server: ServerState): ServerDocument {
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

/** The one virtual server of a personal-client endpoint. */
export const PERSONAL_SERVER_ID = 1;

export function virtualServerDocument(connected: boolean | null, paused: boolean | null): ServerDocument {
  return {
    DATA_TYPE: 'server',
    id: PERSONAL_SERVER_ID,
    hostname: null,
    port: null,
    scheme: null,
    subject: null,
    incoming_data_port_start: null,
    incoming_data_port_end: null,
    outgoing_data_port_start: null,
    outgoing_data_port_end: null,
    uri: null,
    is_connected: connected,
    is_paused: paused,
  };
}

function checkDataType(input: ServerInput): void {
  if (input.DATA_TYPE !== undefined && input.DATA_TYPE !== 'server') {
    throw new BadRequestError(`Invalid DATA_TYPE '${input.DATA_TYPE}' for a server document: expected 'server'`);
  }
}

function checkScheme(value: string): ServerScheme {
  if (!(SERVER_SCHEMES as readonly string[]).includes(value)) {
    throw new BadRequestError(`Invalid scheme '${value}': must be one of ${SERVER_SCHEMES.join(', ')}`);
  }
  return value as ServerScheme;
}

function checkSubject(value: string | null): string | null {
  return value === null ? null : checkText('subject', value, { max: 1024, singleLine: true });
}

function checkPortRange(direction: 'incoming' | 'outgoing', start: number | null, end: number | null): void {
  const s = `${direction}_data_port_start`;
  const e = `${direction}_data_port_end`;
  if ((start === null) !== (end === null)) throw new BadRequestError(`Invalid ${s}/${e}: must be set together`);
  if (start === null || end === null) return;
  checkInteger(s, start, 1024, 65535);
  checkInteger(e, end, 1024, 65535);
  if (end < start) throw new BadRequestError(`Invalid ${e}: must be greater than or equal to ${s}`);
}

/** Builds a new server from an add-server document (or a `DATA` entry on create). */
export function newServer(id: number, input: ServerInput): ServerState {
  checkDataType(input);
  for (const field of DERIVED_SERVER_FIELDS) {
    if (input[field] !== undefined) {
      throw new BadRequestError(`Field '${field}' of a server is derived or status only and must not be sent`);
    }
  }
  if (input.hostname === undefined || input.hostname === null) {
    throw new BadRequestError("Field 'hostname' is required to add a server");
  }
  const server: ServerState = {
    id,
    hostname: checkHostname('hostname', input.hostname),
    port: checkInteger('port', input.port ?? DEFAULT_SERVER_PORT, 1, 65535),
    scheme: checkScheme(input.scheme ?? 'gsiftp'),
    subject: checkSubject(input.subject ?? null),
    incoming_data_port_start: input.incoming_data_port_start ?? null,
    incoming_data_port_end: input.incoming_data_port_end ?? null,
    outgoing_data_port_start: input.outgoing_data_port_start ?? null,
    outgoing_data_port_end: input.outgoing_data_port_end ?? null,
  };
  checkPortRange('incoming', server.incoming_data_port_start, server.incoming_data_port_end);
  checkPortRange('outgoing', server.outgoing_data_port_start, server.outgoing_data_port_end);
  return server;
}

/** Applies a partial server document; fields other than hostname, scheme, port, subject must be unchanged. */
export function updatedServer(server: ServerState, input: ServerInput): ServerState {
  checkDataType(input);
  const current = serverDocument(server);
  for (const [field, value] of Object.entries(input)) {
    if (field === 'DATA_TYPE' || (UPDATABLE_SERVER_FIELDS as readonly string[]).includes(field) || value === undefined) continue;
    if (!jsonEqual(value, current[field as keyof ServerDocument])) {
      throw new BadRequestError(`Field '${field}' of a server cannot be updated: only hostname, scheme, port and subject can`);
    }
  }
  const next = { ...server };
  if (input.hostname !== undefined) {
    if (input.hostname === null) throw new BadRequestError("Invalid hostname: must not be null");
    next.hostname = checkHostname('hostname', input.hostname);
  }
  if (input.scheme !== undefined) {
    if (input.scheme === null) throw new BadRequestError('Invalid scheme: must not be null');
    next.scheme = checkScheme(input.scheme);
  }
  if (input.port !== undefined) {
    if (input.port === null) throw new BadRequestError('Invalid port: must not be null');
    next.port = checkInteger('port', input.port, 1, 65535);
  }
  if (input.subject !== undefined) next.subject = checkSubject(input.subject);
  return next;
}
