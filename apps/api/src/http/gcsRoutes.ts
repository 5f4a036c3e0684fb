import { AuthenticationFailedError, BadRequestError, ConflictError, ConsentRequiredError, DomainError, NotFoundError, PermissionDeniedError, POSIX_CONNECTOR_ID, type Endpoint, type EndpointPatch, type GcsManager, type RoleAssignmentState } from '@xfer/core';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';

/**
 * Where a data node forwards its GCS Manager API (`<node URL>/api/...`): the same routes under
 * this prefix and the node's id. Answered in GCS's own documents and envelope (`result#1.0.0`).
 */
export const GCS_MANAGER_PATH = '/_xfer/gcs/:nodeId/api';

/** The version of the Manager API the node reports (SDK 4.9's fixtures). */
const API_VERSION = '1.29.0';
const MANAGER_VERSION = '5.4.10';

/** A GCS answer: its envelope around `data`. */
function send(res: Response, status: number, data: object[], extra: Record<string, unknown> = {}, version = '1.0.0'): void {
  res.status(status).json({ DATA_TYPE: `result#${version}`, code: status === 201 ? 'created' : 'success', detail: status === 201 ? 'created' : 'success', http_response_code: status, has_next_page: false, data, ...extra });
}

const bearer = (req: Request): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];

/** The GCS endpoint document (endpoint#1.2.0) of a node's Transfer document. */
function endpointDocument(endpoint: Endpoint): object {
  const s = endpoint.snapshot;
  return {
    DATA_TYPE: 'endpoint#1.2.0',
    id: s.id,
    display_name: s.display_name,
    organization: s.organization,
    department: s.department,
    keywords: s.keywords === null ? null : s.keywords.split(',').map((word) => word.trim()).filter(Boolean),
    description: s.description,
    contact_email: s.contact_email,
    contact_info: s.contact_info,
    info_link: s.info_link,
    public: s.public,
    subscription_id: s.subscription_id,
    network_use: s.network_use,
    gcs_manager_url: s.gcs_manager_url,
    allow_udt: false,
    gridftp_control_channel_port: 443,
    earliest_last_access: null,
  };
}

/** A role assignment as GCS shows it (role#1.0.0): its principal a URN. */
function roleDocument(role: RoleAssignmentState, collection: string | null = null): object {
  return {
    DATA_TYPE: 'role#1.0.0',
    id: role.id,
    role: role.role,
    collection,
    principal: role.principal_type === 'identity' ? `urn:globus:auth:identity:${role.principal_id}` : `urn:globus:groups:id:${role.principal_id}`,
  };
}

/** What PATCH /endpoint may change, as the Transfer document's fields (keywords a list in GCS). */
function endpointPatchOf(body: unknown): EndpointPatch {
  const raw = (body ?? {}) as Record<string, unknown>;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new BadRequestError('The body is an endpoint document');
  if (raw.DATA_TYPE !== undefined && (typeof raw.DATA_TYPE !== 'string' || !/^endpoint#1\.\d+\.\d+$/.test(raw.DATA_TYPE))) throw new BadRequestError(`Invalid DATA_TYPE '${String(raw.DATA_TYPE).slice(0, 40)}': endpoint#1.x.y`);
  const { DATA_TYPE: _type, id: _id, gcs_manager_url: _url, keywords, ...fields } = raw;
  const patch: Record<string, unknown> = { ...fields };
  if (keywords !== undefined) {
    if (keywords !== null && !(Array.isArray(keywords) && keywords.every((word) => typeof word === 'string'))) throw new BadRequestError('Invalid keywords: a list of words');
    patch.keywords = keywords === null ? null : keywords.join(',');
  }
  return patch as EndpointPatch;
}

/** Domain refusals as GCS's error documents: their code, their status. */
const ERRORS: ReadonlyArray<[abstract new (...args: never[]) => DomainError, number, string]> = [
  [AuthenticationFailedError, 401, 'unauthorized'],
  // a token for another scope (the Transfer API's) is no token of this Manager
  [ConsentRequiredError, 401, 'unauthorized'],
  [PermissionDeniedError, 403, 'permission_denied'],
  [NotFoundError, 404, 'not_found'],
  [ConflictError, 409, 'conflict'],
  [BadRequestError, 422, 'unprocessable_entity'],
];

/**
 * A data node's GCS Manager API, as the node forwards it (its `/api/` under GCS_MANAGER_PATH):
 * `GET /info` without a token, the endpoint (`GET`, `PATCH`) and its roles; every other answer a
 * GCS error document. The decisions are core's (GcsManager).
 */
export function gcsRoutes(app: Express, manager: GcsManager): void {
  const router = express.Router({ mergeParams: true });
  const nodeOf = (req: Request) => String(req.params.nodeId);

  router.get('/info', async (req, res) => {
    const node = await manager.info(nodeOf(req));
    const info = { DATA_TYPE: 'info#1.0.0', api_version: API_VERSION, client_id: node.id, endpoint_id: node.id, domain_name: new URL(node.url).hostname, manager_version: MANAGER_VERSION };
    send(res, 200, [info, { DATA_TYPE: 'connector#1.1.0', display_name: 'POSIX', id: POSIX_CONNECTOR_ID, is_baa: false, is_ha: false }], {}, '1.1.0');
  });
  router.get('/endpoint', async (req, res) => {
    send(res, 200, [endpointDocument((await manager.endpoint(bearer(req), nodeOf(req))).endpoint)]);
  });
  router.patch('/endpoint', async (req, res) => {
    send(res, 200, [endpointDocument((await manager.updateEndpoint(bearer(req), nodeOf(req), endpointPatchOf(req.body))).endpoint)]);
  });
  router.get('/roles', async (req, res) => {
    send(res, 200, (await manager.roles(bearer(req), nodeOf(req))).map((role) => roleDocument(role)));
  });
  router.use((req: Request, res: Response) => {
    res.status(404).json({ DATA_TYPE: 'result#1.0.0', code: 'not_found', http_response_code: 404, detail: null, message: `No such route of the GCS Manager API: ${req.method} ${req.path}`, data: [], has_next_page: false });
  });
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const known = error instanceof DomainError ? ERRORS.find(([type]) => error instanceof type) : undefined;
    if (!known) return next(error);
    const [, status, code] = known;
    if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="xfer"');
    res.status(status).json({ DATA_TYPE: 'result#1.0.0', code, http_response_code: status, detail: null, message: (error as Error).message, data: [], has_next_page: false });
  });
  app.use(GCS_MANAGER_PATH, router);
}
