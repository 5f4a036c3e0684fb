import {
  BadRequestError,
  checkLegacyName,
  ENDPOINT_SETTINGS,
  fieldCannotBeSet,
  jsonEqual,
  serverFieldCannotBeUpdated,
  shortUsername,
  type CreateEndpoint,
  type CreateSharedEndpoint,
  type EndpointPatch,
  type EndpointSettings,
  type EndpointView,
  type ServerInput,
  type ServerPatch,
  type ServerState,
} from '@xfer/core';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsInt, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { endpointDocument, serverDocument } from './documents';
import { ENDPOINT_FIELDS } from './endpointFields';
import { parseBody } from './validation';

/**
 * v0.10 request documents to typed commands. The DTOs check types and known keys; the decoders
 * resolve the wire's aliases and read-only keys; the domain checks the values.
 */
type FieldType = 'string' | 'boolean' | 'nullableBoolean' | 'integer' | 'any';

function declareFields(target: object, fields: Record<string, FieldType>): void {
  for (const [name, type] of Object.entries(fields)) {
    if (type === 'any') {
      Allow()(target, name);
      continue;
    }
    // null clears a text or number; a boolean setting has no null
    if (type === 'boolean') ValidateIf((_object, value) => value !== undefined)(target, name);
    else IsOptional()(target, name);
    if (type === 'string') IsString()(target, name);
    if (type === 'boolean' || type === 'nullableBoolean') IsBoolean()(target, name);
    if (type === 'integer') IsInt()(target, name);
  }
}

const SERVER_FIELDS = [
  'hostname',
  'port',
  'scheme',
  'subject',
  'incoming_data_port_start',
  'incoming_data_port_end',
  'outgoing_data_port_start',
  'outgoing_data_port_end',
] as const;
/** Derived or status keys of a server document: never taken from a client. */
const DERIVED_SERVER_FIELDS = ['id', 'uri', 'is_connected', 'is_paused'] as const;

export class ServerDocumentDto {
  [field: string]: unknown;
}
declareFields(ServerDocumentDto.prototype, {
  DATA_TYPE: 'string',
  hostname: 'string',
  port: 'integer',
  scheme: 'string',
  subject: 'string',
  incoming_data_port_start: 'integer',
  incoming_data_port_end: 'integer',
  outgoing_data_port_start: 'integer',
  outgoing_data_port_end: 'integer',
  ...Object.fromEntries(DERIVED_SERVER_FIELDS.map((f) => [f, 'any'])),
});

/** Two settings with a second name (compat: requests take either name, never two values): [alias, name]. */
const CONCURRENCY_ALIASES = ENDPOINT_FIELDS.flatMap((f) => (f.aliasOf ? [[f.name, f.aliasOf] as const] : []));

/** Every key of endpoint, shared-endpoint and update bodies, including the read-only ones of a GET. */
export class EndpointDocumentDto {
  [field: string]: unknown;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ServerDocumentDto)
  DATA?: ServerDocumentDto[];
}
// every field a body may hold, of its type; the read-only ones as any value (checked against the current document on update)
declareFields(EndpointDocumentDto.prototype, Object.fromEntries(ENDPOINT_FIELDS.flatMap((f): [string, FieldType][] => (f.input ? [[f.name, f.input === 'readOnly' ? 'any' : f.input]] : []))));

/** An endpoint body once its types are checked: what each key holds is what its DTO allows. */
type EndpointBody = Record<string, unknown> & {
  DATA_TYPE?: string;
  DATA?: Record<string, unknown>[] | null;
  name?: string | null;
  canonical_name?: string | null;
  is_vendor_connect?: boolean | null;
  is_globus_connect?: boolean | null;
  host_endpoint?: string | null;
  host_endpoint_id?: string | null;
  host_path?: string | null;
  owner_string?: string | null;
};

const SETTINGS: ReadonlySet<string> = new Set(ENDPOINT_SETTINGS);
const HOST_FIELDS = ['host_endpoint', 'host_endpoint_id', 'host_path'] as const;
/** Keys of a create body that are not settings but that the decoder turns into the command. */
const CREATE_KEYS: ReadonlySet<string> = new Set(['DATA_TYPE', 'DATA', 'name', 'canonical_name', 'is_vendor_connect', ...HOST_FIELDS]);

function settingsOf(body: EndpointBody): EndpointSettings {
  const settings: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) if (SETTINGS.has(field)) settings[field] = value;
  return settings as EndpointSettings;
}

function ownerOnCreate(): BadRequestError {
  return new BadRequestError("Field 'owner_string' is set from your identity on create");
}

/** A document's DATA_TYPE is optional on input, and checked when present. */
export function checkDataType(body: { DATA_TYPE?: unknown }, expected: string): void {
  if (body.DATA_TYPE !== undefined && body.DATA_TYPE !== expected) {
    throw new BadRequestError(`Invalid DATA_TYPE '${body.DATA_TYPE}': expected '${expected}'`);
  }
}

/** The spec's older names of the concurrency ceilings, as the hosted names; both names with different values: 400 naming them. */
function withConcurrencyAliases(body: EndpointBody): EndpointBody {
  let resolved = body;
  for (const [alias, name] of CONCURRENCY_ALIASES) {
    if (resolved[alias] === undefined) continue;
    const { [alias]: value, ...rest } = resolved;
    if (rest[name] !== undefined && !jsonEqual(rest[name], value)) throw new BadRequestError(`${alias} and ${name} are one field and disagree: send one of them`);
    resolved = { ...rest, [name]: value };
  }
  return resolved;
}

/** `is_globus_connect` is the hosted service's name for `is_vendor_connect` on input (compat-notes). */
function withVendorConnectAlias(body: EndpointBody): EndpointBody {
  const { is_globus_connect, ...rest } = body;
  if (is_globus_connect === undefined) return body;
  if (rest.is_vendor_connect !== undefined && rest.is_vendor_connect !== is_globus_connect) {
    throw new BadRequestError('is_globus_connect and is_vendor_connect disagree: send one of them');
  }
  return { ...rest, is_vendor_connect: is_globus_connect };
}

/** `name`, or the deprecated `canonical_name` (USERNAME#NAME, the caller's username first); the domain checks the name. */
function legacyName(body: EndpointBody, username: string): string | null | undefined {
  const user = shortUsername(username);
  let name = body.name ?? undefined;
  if (body.canonical_name != null) {
    const hash = body.canonical_name.indexOf('#');
    if (hash < 0) throw new BadRequestError('Invalid canonical_name: must have the form USERNAME#ENDPOINTNAME');
    const userPart = body.canonical_name.slice(0, hash);
    const namePart = checkLegacyName('canonical_name', body.canonical_name.slice(hash + 1));
    if (userPart !== user) {
      throw new BadRequestError(`Invalid canonical_name: the username part must be your username '${user}'`);
    }
    if (name !== undefined && name !== namePart) throw new BadRequestError('name and canonical_name disagree: send one of them');
    name = namePart;
  }
  if (name !== undefined) return name;
  // asked for without a value: the endpoint gets its id as its name, and needs no display_name
  return body.name === null || body.canonical_name === null ? null : undefined;
}

/** `POST /endpoint`: a server or personal-client endpoint owned by `username`. */
export async function decodeCreateEndpoint(raw: unknown, username: string): Promise<CreateEndpoint> {
  const body = withConcurrencyAliases(withVendorConnectAlias((await parseBody(EndpointDocumentDto, raw)) as EndpointBody));
  if (body.DATA_TYPE === 'shared_endpoint' || HOST_FIELDS.some((f) => body[f] != null)) {
    throw new BadRequestError('Shared endpoints are created with POST /shared_endpoint, not POST /endpoint');
  }
  checkDataType(body, 'endpoint');
  const personal = body.is_vendor_connect === true;
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || SETTINGS.has(field) || CREATE_KEYS.has(field)) continue;
    throw field === 'owner_string' ? ownerOnCreate() : fieldCannotBeSet(field, personal ? 'personal' : 'server', 'create');
  }
  const name = legacyName(body, username);
  const command: CreateEndpoint = { ...settingsOf(body), personal };
  if (name !== undefined) command.name = name;
  if (body.DATA !== undefined) command.servers = (body.DATA ?? []).map(decodeServer);
  return command;
}

/** `POST /shared_endpoint`: the host (`host_endpoint` or its alias `host_endpoint_id`) and the path on it. */
export async function decodeCreateSharedEndpoint(raw: unknown): Promise<CreateSharedEndpoint> {
  const body = withConcurrencyAliases((await parseBody(EndpointDocumentDto, raw)) as EndpointBody);
  const { host_endpoint: a, host_endpoint_id: b } = body;
  if (a != null && b != null && a !== b) throw new BadRequestError('host_endpoint and host_endpoint_id name different endpoints');
  const host = a ?? b;
  if (host == null) throw new BadRequestError("Field 'host_endpoint' is required to create a shared endpoint");
  checkDataType(body, 'shared_endpoint');
  if (body.DATA !== undefined) throw new BadRequestError('Servers cannot be added to a shared endpoint');
  for (const [field, value] of Object.entries(body)) {
    if (value === undefined || SETTINGS.has(field) || field === 'DATA_TYPE' || (HOST_FIELDS as readonly string[]).includes(field)) continue;
    throw field === 'owner_string' ? ownerOnCreate() : fieldCannotBeSet(field, 'shared', 'create');
  }
  return { ...settingsOf(body), host_endpoint_id: host, host_path: body.host_path };
}

/** The read-only keys of a body, each with the value the client sent back. */
export type SentBack = [field: string, value: unknown][];

/** `PUT /endpoint/<id>`: the patch, and the read-only keys sent back with it. */
export async function decodeEndpointPatch(raw: unknown): Promise<{ patch: EndpointPatch; sentBack: SentBack }> {
  const body = withConcurrencyAliases((await parseBody(EndpointDocumentDto, raw)) as EndpointBody);
  checkDataType(body, 'endpoint');
  const patch: EndpointPatch = settingsOf(body);
  if (body.owner_string !== undefined) patch.owner_string = body.owner_string;
  const sentBack = Object.entries(body).filter(([field]) => !SETTINGS.has(field) && field !== 'owner_string' && field !== 'DATA_TYPE');
  return { patch, sentBack };
}

const CHANGING_ON_THEIR_OWN = new Set(ENDPOINT_FIELDS.filter((f) => f.changesOnItsOwn).map((f) => f.name));

/** Read-only keys may come back as the endpoint document shows them now (a status as any value of its type), and only so. */
export function assertSentBackUnchanged(sentBack: SentBack, current: EndpointView): void {
  const document: Record<string, unknown> = endpointDocument(current);
  for (const [field, value] of sentBack) {
    if (jsonEqual(value, document[field])) continue;
    if (CHANGING_ON_THEIR_OWN.has(field) && typeof value === typeof document[field]) continue;
    if (field === 'DATA') throw new BadRequestError("Field 'DATA' cannot be changed here: use the endpoint server operations");
    throw fieldCannotBeSet(field, current.endpoint.kind, 'update');
  }
}

function checkServerDataType(body: Record<string, unknown>): void {
  if (body.DATA_TYPE !== undefined && body.DATA_TYPE !== 'server') {
    throw new BadRequestError(`Invalid DATA_TYPE '${String(body.DATA_TYPE)}' for a server document: expected 'server'`);
  }
}

function serverFields(body: Record<string, unknown>): ServerInput {
  const input: Record<string, unknown> = {};
  for (const field of SERVER_FIELDS) if (body[field] !== undefined) input[field] = body[field];
  return input as ServerInput;
}

/** A server document to add (checked by ServerDocumentDto, alone or as an entry of DATA). */
function decodeServer(body: Record<string, unknown>): ServerInput {
  checkServerDataType(body);
  for (const field of DERIVED_SERVER_FIELDS) {
    if (body[field] !== undefined) throw new BadRequestError(`Field '${field}' of a server is derived or status only and must not be sent`);
  }
  return serverFields(body);
}

/** `POST /endpoint/<id>/server`. */
export async function decodeAddServer(raw: unknown): Promise<ServerInput> {
  return decodeServer(await parseBody(ServerDocumentDto, raw));
}

/** `PUT /endpoint/<id>/server/<id>`: the patch, and the derived keys sent back with it. */
export async function decodeServerPatch(raw: unknown): Promise<{ patch: ServerPatch; sentBack: SentBack }> {
  const body = await parseBody(ServerDocumentDto, raw);
  checkServerDataType(body);
  return { patch: serverFields(body), sentBack: DERIVED_SERVER_FIELDS.filter((f) => body[f] !== undefined).map((f) => [f, body[f]]) };
}

/** Derived keys of a server may come back as its document shows them now, and only so. */
export function assertServerSentBackUnchanged(sentBack: SentBack, current: ServerState): void {
  const document: Record<string, unknown> = serverDocument(current) as unknown as Record<string, unknown>;
  for (const [field, value] of sentBack) if (!jsonEqual(value, document[field])) throw serverFieldCannotBeUpdated(field);
}
