import { BadRequestError } from '../shared/errors';
import { checkHostname, checkInteger, checkText } from '../shared/text';

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

/** A server to add, typed; the values are checked here. */
export interface ServerInput {
  hostname?: string | null;
  port?: number | null;
  scheme?: string | null;
  subject?: string | null;
  incoming_data_port_start?: number | null;
  incoming_data_port_end?: number | null;
  outgoing_data_port_start?: number | null;
  outgoing_data_port_end?: number | null;
}

/** A change to a server: hostname, scheme, port and subject change; the data ports may only be sent unchanged. */
export type ServerPatch = ServerInput;

/** The one server of a personal-client endpoint: it stands for the client, which says whether it is connected. */
export interface VirtualServer {
  id: number;
  virtual: true;
  connected: boolean | null;
  paused: boolean | null;
}

/** A server as an endpoint lists it. */
export type EndpointServer = ServerState | VirtualServer;

export function isVirtualServer(server: EndpointServer): server is VirtualServer {
  return 'virtual' in server;
}

/** The one virtual server of a personal-client endpoint. */
export const PERSONAL_SERVER_ID = 1;

export function virtualServer(connected: boolean | null, paused: boolean | null): VirtualServer {
  return { id: PERSONAL_SERVER_ID, virtual: true, connected, paused };
}

/** The only fields an update may change (spec 4.2, rule 10). */
const UPDATABLE_SERVER_FIELDS = ['hostname', 'scheme', 'port', 'subject'] as const;

/** The one wording of "that field of a server cannot be updated". */
export function serverFieldCannotBeUpdated(field: string): BadRequestError {
  return new BadRequestError(`Field '${field}' of a server cannot be updated: only hostname, scheme, port and subject can`);
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
  // Stryker disable next-line ConditionalExpression,LogicalOperator: past the check above, start and end are null together or not at all
  if (start === null || end === null) return;
  checkInteger(s, start, 1024, 65535);
  checkInteger(e, end, 1024, 65535);
  if (end < start) throw new BadRequestError(`Invalid ${e}: must be greater than or equal to ${s}`);
}

/** Builds a new server (added to an endpoint, or listed when the endpoint is created). */
export function newServer(id: number, input: ServerInput): ServerState {
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

/** Applies a server patch; fields other than hostname, scheme, port and subject must be unchanged. */
export function updatedServer(server: ServerState, patch: ServerPatch): ServerState {
  for (const [field, value] of Object.entries(patch)) {
    if ((UPDATABLE_SERVER_FIELDS as readonly string[]).includes(field) || value === undefined) continue;
    if (value !== server[field as keyof ServerState]) throw serverFieldCannotBeUpdated(field);
  }
  const next = { ...server };
  if (patch.hostname !== undefined) {
    if (patch.hostname === null) throw new BadRequestError('Invalid hostname: must not be null');
    next.hostname = checkHostname('hostname', patch.hostname);
  }
  if (patch.scheme !== undefined) {
    if (patch.scheme === null) throw new BadRequestError('Invalid scheme: must not be null');
    next.scheme = checkScheme(patch.scheme);
  }
  if (patch.port !== undefined) {
    if (patch.port === null) throw new BadRequestError('Invalid port: must not be null');
    next.port = checkInteger('port', patch.port, 1, 65535);
  }
  if (patch.subject !== undefined) next.subject = checkSubject(patch.subject);
  return next;
}
