import { AuthenticationFailedError, BadRequestError, ConflictError, ConsentRequiredError, DomainError, EndpointDeletedError, InvalidFieldError, MAX_COLLECTION_PAGE, NotFoundError, PermissionDeniedError, POSIX_CONNECTOR_ID, type CollectionFilter, type GcsManager } from '@xfer/core';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import {
  collectionCreateOf,
  collectionDocument,
  collectionPatchOf,
  endpointDocument,
  endpointPatchOf,
  fixedFieldsOf,
  gatewayDocument,
  gatewayInputOf,
  roleCreateOf,
  roleDocument,
  userCredentialDocument,
  userCredentialInputOf,
} from './gcsDocuments';

/**
 * Where a data node forwards its GCS Manager API (`<node URL>/api/...`): the same routes under
 * this prefix and the node's id. Answered in GCS's own documents and envelope (`result#1.0.0`).
 */
export const GCS_MANAGER_PATH = '/_xfer/gcs/:nodeId/api';

/** The version of the Manager API the node reports (SDK 4.9's fixtures). */
const API_VERSION = '1.29.0';
const MANAGER_VERSION = '5.4.10';
const DEFAULT_PAGE = 100;

/** A GCS answer: its envelope around `data`. */
function send(res: Response, status: number, data: object[], extra: Record<string, unknown> = {}, version = '1.0.0'): void {
  res.status(status).json({ DATA_TYPE: `result#${version}`, code: 'success', detail: status === 201 ? 'created' : 'success', http_response_code: status, has_next_page: false, data, ...extra });
}

const bearer = (req: Request): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];

/** One query parameter as a string (the last when repeated); undefined when absent. */
function queryParam(req: Request, name: string): string | undefined {
  const value = req.query[name];
  const last = Array.isArray(value) ? value.at(-1) : value;
  return typeof last === 'string' ? last : undefined;
}

const FILTERS: Record<string, CollectionFilter> = { mapped_collections: 'mapped_collections', guest_collections: 'guest_collections', managed_by_me: 'managed_by_me', created_by_me: 'created_by_me' };

function collectionFilters(req: Request): CollectionFilter[] {
  const raw = queryParam(req, 'filter');
  if (raw === undefined || raw === '') return [];
  return raw.split(',').map((name) => {
    const filter = FILTERS[name.trim().replaceAll('-', '_')];
    if (!filter) throw new InvalidFieldError('filter', `'${name.slice(0, 40)}' is not one of ${Object.keys(FILTERS).join(', ')}`);
    return filter;
  });
}

function pageSize(req: Request): number {
  const raw = queryParam(req, 'page_size');
  if (raw === undefined) return DEFAULT_PAGE;
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > MAX_COLLECTION_PAGE) throw new InvalidFieldError('page_size', `an integer from 1 to ${MAX_COLLECTION_PAGE}`);
  return size;
}

/** Domain refusals as GCS's error documents: their code, their status. */
const ERRORS: ReadonlyArray<[abstract new (...args: never[]) => DomainError, number, string]> = [
  [AuthenticationFailedError, 401, 'unauthorized'],
  // a token for another scope (the Transfer API's) is no token of this Manager
  [ConsentRequiredError, 401, 'unauthorized'],
  [PermissionDeniedError, 403, 'permission_denied'],
  [NotFoundError, 404, 'not_found'],
  [EndpointDeletedError, 404, 'not_found'],
  [ConflictError, 409, 'conflict'],
  [BadRequestError, 422, 'unprocessable_entity'],
];

/**
 * A data node's GCS Manager API, as the node forwards it (its `/api/` under GCS_MANAGER_PATH):
 * `GET /info` without a token; the endpoint, its storage gateways, collections, roles and user
 * credentials; every other answer a GCS error document. The decisions are core's (GcsManager).
 */
export function gcsRoutes(app: Express, manager: GcsManager): void {
  const router = express.Router({ mergeParams: true });
  const nodeOf = (req: Request) => String(req.params.nodeId);
  const idOf = (req: Request) => String(req.params.id);

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

  router.get('/storage_gateways', async (req, res) => {
    send(res, 200, (await manager.gateways(bearer(req), nodeOf(req))).map(gatewayDocument));
  });
  router.post('/storage_gateways', async (req, res) => {
    send(res, 200, [gatewayDocument(await manager.createGateway(bearer(req), nodeOf(req), gatewayInputOf(req.body)))]);
  });
  router.get('/storage_gateways/:id', async (req, res) => {
    send(res, 200, [gatewayDocument(await manager.gateway(bearer(req), nodeOf(req), idOf(req)))]);
  });
  router.patch('/storage_gateways/:id', async (req, res) => {
    send(res, 200, [gatewayDocument(await manager.updateGateway(bearer(req), nodeOf(req), idOf(req), gatewayInputOf(req.body)))]);
  });
  router.delete('/storage_gateways/:id', async (req, res) => {
    await manager.deleteGateway(bearer(req), nodeOf(req), idOf(req));
    send(res, 200, []);
  });

  router.get('/collections', async (req, res) => {
    const page = await manager.collections(bearer(req), nodeOf(req), { filters: collectionFilters(req), mappedCollectionId: queryParam(req, 'mapped_collection_id'), marker: queryParam(req, 'marker') || undefined, pageSize: pageSize(req) });
    send(res, 200, page.collections.map(({ endpoint }) => collectionDocument(endpoint)), { has_next_page: page.marker !== null, marker: page.marker ?? '' });
  });
  router.post('/collections', async (req, res) => {
    send(res, 200, [collectionDocument((await manager.createCollection(bearer(req), nodeOf(req), collectionCreateOf(req.body))).endpoint)]);
  });
  router.get('/collections/:id', async (req, res) => {
    send(res, 200, [collectionDocument((await manager.collection(bearer(req), nodeOf(req), idOf(req))).endpoint)]);
  });
  router.patch('/collections/:id', async (req, res) => {
    const { fixed, ...patch } = collectionPatchOf(req.body);
    const updated = await manager.updateCollection(bearer(req), nodeOf(req), idOf(req), patch, (current) => {
      const now = fixedFieldsOf(current);
      for (const [field, value] of Object.entries(fixed)) if (value !== now[field]) throw new InvalidFieldError(field, 'is fixed when the collection is made');
    });
    send(res, 200, [collectionDocument(updated.endpoint)]);
  });
  router.delete('/collections/:id', async (req, res) => {
    await manager.deleteCollection(bearer(req), nodeOf(req), idOf(req));
    send(res, 200, []);
  });

  router.get('/roles', async (req, res) => {
    send(res, 200, (await manager.roles(bearer(req), nodeOf(req), queryParam(req, 'collection_id') || null)).map(roleDocument));
  });
  router.post('/roles', async (req, res) => {
    send(res, 200, [roleDocument(await manager.createRole(bearer(req), nodeOf(req), roleCreateOf(req.body)))]);
  });
  router.get('/roles/:id', async (req, res) => {
    send(res, 200, [roleDocument(await manager.role(bearer(req), nodeOf(req), idOf(req)))]);
  });
  router.delete('/roles/:id', async (req, res) => {
    await manager.deleteRole(bearer(req), nodeOf(req), idOf(req));
    send(res, 200, []);
  });

  router.get('/user_credentials', async (req, res) => {
    send(res, 200, (await manager.userCredentials(bearer(req), nodeOf(req), queryParam(req, 'storage_gateway') || undefined)).map(userCredentialDocument));
  });
  router.post('/user_credentials', async (req, res) => {
    const credential = await manager.createUserCredential(bearer(req), nodeOf(req), userCredentialInputOf(req.body));
    send(res, 201, [userCredentialDocument(credential)], { message: `Created User Credential ${credential.id}` });
  });
  router.get('/user_credentials/:id', async (req, res) => {
    send(res, 200, [userCredentialDocument(await manager.userCredential(bearer(req), nodeOf(req), idOf(req)))]);
  });
  router.patch('/user_credentials/:id', async (req, res) => {
    send(res, 200, [userCredentialDocument(await manager.updateUserCredential(bearer(req), nodeOf(req), idOf(req), userCredentialInputOf(req.body)))]);
  });
  router.delete('/user_credentials/:id', async (req, res) => {
    await manager.deleteUserCredential(bearer(req), nodeOf(req), idOf(req));
    send(res, 200, []);
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
