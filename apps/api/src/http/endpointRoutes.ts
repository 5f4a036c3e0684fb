import { ServerNotFoundError, type AccessRuleService, type CreatedEndpoint, type EndpointManagerService, type EndpointService, type EndpointView, type ReadMemo, type ServerState, type TaskService } from '@xfer/core';
import type { Request, Response, Router } from 'express';
import { principalOf } from './authenticate';
import { sendJsonBytes, sendResult } from './results';
import { decodeRoleGrant, roleDocument } from './v010/roles';
import { decodePauseRule, decodeSubscriptionAdminVerified, decodeSubscriptionChange } from './v010/endpointManager';
import { accessDocument, decodeAccessPatch, decodeNewAccessRule } from './v010/access';
import { encodeShareCursor, pauseRuleListQuery, searchRequest, sharesPage } from './v010/paging';
import { endpointFieldName, inWireNames } from './v010/fieldNames';
import { dataNodeDocument, endpointDocument, fieldSelection, limitedPauseRuleDocument, pauseRuleDocument, selectFields, serverDocument } from './v010/documents';
import {
  assertSentBackUnchanged,
  assertServerSentBackUnchanged,
  decodeAddServer,
  decodeCreateEndpoint,
  decodeCreateSharedEndpoint,
  decodeEndpointPatch,
  decodeServerPatch,
} from './v010/requests';

type Params = { xid: string; serverId: string };

function serverIdOf(req: Request<Params>): number {
  const { xid, serverId } = req.params;
  if (!/^\d{1,9}$/.test(serverId)) throw new ServerNotFoundError(xid, serverId);
  return Number(serverId);
}

/** endpoint_create_result: the setup key under both its names (null for all but personal endpoints). */
function sendCreated(req: Request, res: Response, message: string, created: CreatedEndpoint): void {
  sendResult(req, res, 201, {
    DATA_TYPE: 'endpoint_create_result',
    code: 'Created',
    message,
    id: created.id,
    canonical_name: created.canonical_name,
    vendor_connect_setup_key: created.vendor_connect_setup_key,
    globus_connect_setup_key: created.vendor_connect_setup_key,
  });
}

/** The twelve endpoint operations: decode the request, call the use case, render the documents. */
export function endpointRoutes(router: Router, endpoints: EndpointService, accessRules: AccessRuleService, manager: EndpointManagerService, tasks: TaskService, memo: ReadMemo): Router {

  /** Endpoint documents for this caller: `in_use` where one of the caller's ACTIVE tasks uses the endpoint. */
  const documentsFor = async (res: Response) => {
    const inUse = await tasks.endpointsInUse(principalOf(res));
    return { inUse, document: (view: EndpointView) => endpointDocument(view, inUse) };
  };

  /**
   * Sends the document of a read that depends on stored data only (not the time), remembered per
   * caller and URL until that data changes (the memo forgets everything when anything is written,
   * so `in_use`, read from the tasks, is looked up on a miss only). A refusal is never remembered.
   * Kept as bytes: a repeat sends them as they are (an access list of 1,000 rules is 300 KB to
   * encode otherwise).
   */
  const sendRemembered = async (req: Request, res: Response, render: (document: (view: EndpointView) => ReturnType<typeof endpointDocument>) => Promise<unknown>) => {
    const principal = principalOf(res);
    const bytes = await memo.remember(`${principal.principalKey} ${req.originalUrl}`, async () => Buffer.from(JSON.stringify(await render((await documentsFor(res)).document))));
    sendJsonBytes(res, bytes);
  };

  router.get('/endpoint/:xid', (req, res) =>
    sendRemembered(req, res, async (document) => {
      const selection = fieldSelection(req.query.fields);
      return selectFields(document(await endpoints.getEndpoint(principalOf(res), req.params.xid)), selection);
    }),
  );

  router.get('/endpoint_search', async (req, res) => {
    const selection = fieldSelection(req.query.fields);
    const found = await endpoints.search(principalOf(res), searchRequest(req.query));
    const { document } = await documentsFor(res);
    res.json({
      DATA_TYPE: 'endpoint_list',
      offset: found.offset,
      limit: found.limit,
      has_next_page: found.hasNextPage,
      // each document is made for this answer: _rank goes on it, not on a copy of its seventy keys
      DATA: found.results.map(({ view, rank }) => Object.assign(selectFields(document(view), selection), { _rank: rank })),
    });
  });

  router.post('/endpoint', async (req, res) => {
    const caller = principalOf(res);
    const command = await decodeCreateEndpoint(req.body, caller.primary.username);
    const created = await endpoints.createEndpoint(caller, command).catch((error: unknown) => {
      throw inWireNames(error, endpointFieldName);
    });
    sendCreated(req, res, 'Endpoint created successfully', created);
  });

  router.post('/shared_endpoint', async (req, res) => {
    const command = await decodeCreateSharedEndpoint(req.body);
    sendCreated(req, res, 'Shared endpoint created successfully', await endpoints.createSharedEndpoint(principalOf(res), command));
  });

  router.put('/endpoint/:xid', async (req, res) => {
    const { patch, sentBack } = await decodeEndpointPatch(req.body);
    const ifUnchanged = sentBack.length > 0 ? (current: EndpointView) => assertSentBackUnchanged(sentBack, current) : undefined;
    await endpoints.updateEndpoint(principalOf(res), req.params.xid, patch, ifUnchanged);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: 'Endpoint updated successfully' });
  });

  /** The subscription alone, as the hosted service's SDK sets it (`set_subscription_id`): the update's rules. */
  router.put('/endpoint/:xid/subscription', async (req, res) => {
    const subscriptionId = await decodeSubscriptionChange(req.body);
    await endpoints.updateEndpoint(principalOf(res), req.params.xid, { subscription_id: subscriptionId });
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: 'Endpoint subscription updated successfully' });
  });

  router.put('/endpoint/:xid/subscription_admin_verified', async (req, res) => {
    await endpoints.setSubscriptionAdminVerified(principalOf(res), req.params.xid, await decodeSubscriptionAdminVerified(req.body));
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: 'Endpoint subscription verification updated successfully' });
  });

  router.delete('/endpoint/:xid', async (req, res) => {
    await endpoints.deleteEndpoint(principalOf(res), req.params.xid);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Deleted', message: 'Endpoint deleted successfully' });
  });

  router.get('/endpoint/:xid/my_effective_pause_rule_list', async (req, res) => {
    const rules = await endpoints.myEffectivePauseRules(principalOf(res), req.params.xid);
    res.json({ DATA_TYPE: 'pause_rule_list', DATA: rules.map(limitedPauseRuleDocument) });
  });

  router.get('/endpoint/:xid/server_list', async (req, res) => {
    const servers = await endpoints.listServers(principalOf(res), req.params.xid);
    res.json({ DATA_TYPE: 'endpoint_server_list', DATA: servers.map(serverDocument) });
  });

  router.get('/endpoint/:xid/server/:serverId', async (req, res) => {
    res.json(serverDocument(await endpoints.getServer(principalOf(res), req.params.xid, serverIdOf(req))));
  });

  router.post('/endpoint/:xid/server', async (req, res) => {
    const input = await decodeAddServer(req.body);
    const id = await endpoints.addServer(principalOf(res), req.params.xid, input);
    sendResult(req, res, 201, {
      DATA_TYPE: 'endpoint_server_add_result',
      code: 'Created',
      message: 'Server added to endpoint successfully',
      id,
    });
  });

  router.put('/endpoint/:xid/server/:serverId', async (req, res) => {
    const { patch, sentBack } = await decodeServerPatch(req.body);
    const ifUnchanged = sentBack.length > 0 ? (current: ServerState) => assertServerSentBackUnchanged(sentBack, current) : undefined;
    await endpoints.updateServer(principalOf(res), req.params.xid, serverIdOf(req), patch, ifUnchanged);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: 'Server updated successfully' });
  });

  router.delete('/endpoint/:xid/server/:serverId', async (req, res) => {
    await endpoints.deleteServer(principalOf(res), req.params.xid, serverIdOf(req));
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Deleted', message: 'Server deleted successfully' });
  });

  router.get('/endpoint/:xid/shared_endpoint_list', async (req, res) => {
    const page = sharesPage(req.query);
    const { views, next } = await endpoints.sharesOfHost(principalOf(res), req.params.xid, page);
    const { document } = await documentsFor(res);
    res.json({ DATA_TYPE: 'shared_endpoint_list', shared_endpoints: views.map(document), next_token: next === null ? null : encodeShareCursor(next) });
  });

  // ---- roles (catalogue features 3) ----
  router.get('/endpoint/:xid/role_list', async (req, res) => {
    const roles = await endpoints.listRoles(principalOf(res), req.params.xid);
    res.json({ DATA_TYPE: 'role_list', DATA: roles.map(roleDocument) });
  });

  router.get('/endpoint/:xid/role/:roleId', async (req, res) => {
    res.json(roleDocument(await endpoints.getRole(principalOf(res), req.params.xid, req.params.roleId)));
  });

  router.post('/endpoint/:xid/role', async (req, res) => {
    const grant = await decodeRoleGrant(req.body);
    const added = await endpoints.addRole(principalOf(res), req.params.xid, grant);
    res.status(201).json(roleDocument(added));
  });

  router.delete('/endpoint/:xid/role/:roleId', async (req, res) => {
    await endpoints.deleteRole(principalOf(res), req.params.xid, req.params.roleId);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Deleted', message: `Role '${req.params.roleId}' deleted successfully` });
  });

  // ---- access rules of shares (catalogue features 4) ----
  router.get('/endpoint/:xid/access_list', (req, res) =>
    sendRemembered(req, res, async () => {
      const { endpointId, rules } = await accessRules.list(principalOf(res), req.params.xid);
      return { DATA_TYPE: 'access_list', endpoint: endpointId, length: rules.length, DATA: rules.map(accessDocument) };
    }),
  );

  router.get('/endpoint/:xid/access/:ruleId', async (req, res) => {
    res.json(accessDocument(await accessRules.get(principalOf(res), req.params.xid, req.params.ruleId)));
  });

  router.post('/endpoint/:xid/access', async (req, res) => {
    const rule = await accessRules.add(principalOf(res), req.params.xid, await decodeNewAccessRule(req.body));
    sendResult(req, res, 201, { DATA_TYPE: 'access_create_result', code: 'Created', message: 'Access rule created successfully.', access_id: rule.id });
  });

  router.put('/endpoint/:xid/access/:ruleId', async (req, res) => {
    const { ruleId } = req.params;
    await accessRules.update(principalOf(res), req.params.xid, ruleId, await decodeAccessPatch(req.body, ruleId));
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Updated', message: `Access rule '${ruleId}' updated successfully` });
  });

  router.delete('/endpoint/:xid/access/:ruleId', async (req, res) => {
    await accessRules.delete(principalOf(res), req.params.xid, req.params.ruleId);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Deleted', message: `Access rule '${req.params.ruleId}' deleted successfully` });
  });

  // ---- the endpoint manager, for what xfer has (the SDK's endpoint_manager_*) ----
  router.get('/endpoint_manager/monitored_endpoints', async (_req, res) => {
    const views = await manager.monitoredEndpoints(principalOf(res));
    const { document } = await documentsFor(res);
    res.json({ DATA_TYPE: 'endpoint_list', DATA: views.map(document), has_next_page: false, offset: 0, limit: views.length });
  });

  router.get('/endpoint_manager/endpoint/:xid', async (req, res) => {
    const view = await manager.endpoint(principalOf(res), req.params.xid);
    const { document } = await documentsFor(res);
    res.json(selectFields(document(view), fieldSelection(req.query.fields)));
  });

  router.get('/endpoint_manager/endpoint/:xid/hosted_endpoint_list', async (req, res) => {
    const views = await manager.hostedEndpoints(principalOf(res), req.params.xid);
    const { document } = await documentsFor(res);
    res.json({ DATA_TYPE: 'endpoint_list', DATA: views.map(document) });
  });

  router.get('/endpoint_manager/endpoint/:xid/access_list', async (req, res) => {
    const { endpointId, rules } = await accessRules.list(principalOf(res), req.params.xid, 'monitor');
    res.json({ DATA_TYPE: 'access_list', endpoint: endpointId, length: rules.length, DATA: rules.map(accessDocument) });
  });

  // xfer's own: the data nodes serving endpoints the caller administers (the console's Data nodes page)
  router.get('/data_node_list', async (_req, res) => {
    const nodes = await manager.dataNodes(principalOf(res));
    res.json({ DATA_TYPE: 'data_node_list', DATA: nodes.map(dataNodeDocument) });
  });

  router.get('/endpoint_manager/pause_rule_list', async (req, res) => {
    const { filter, offset, limit } = pauseRuleListQuery(req.query);
    const page = await manager.pauseRules(principalOf(res), filter, { offset, limit });
    res.json({ DATA_TYPE: 'pause_rule_list', offset: page.offset, limit: page.limit, has_next_page: page.hasNextPage, DATA: page.rules.map(pauseRuleDocument) });
  });

  router.post('/endpoint_manager/pause_rule', async (req, res) => {
    res.json(pauseRuleDocument(await manager.createPauseRule(principalOf(res), await decodePauseRule(req.body))));
  });

  router.get('/endpoint_manager/pause_rule/:ruleId', async (req, res) => {
    res.json(pauseRuleDocument(await manager.pauseRule(principalOf(res), req.params.ruleId)));
  });

  router.put('/endpoint_manager/pause_rule/:ruleId', async (req, res) => {
    res.json(pauseRuleDocument(await manager.updatePauseRule(principalOf(res), req.params.ruleId, await decodePauseRule(req.body))));
  });

  router.delete('/endpoint_manager/pause_rule/:ruleId', async (req, res) => {
    await manager.deletePauseRule(principalOf(res), req.params.ruleId);
    sendResult(req, res, 200, { DATA_TYPE: 'result', code: 'Deleted', message: 'Pause rule deleted successfully' });
  });

  router.get('/endpoint/:xid/my_shared_endpoint_list', (req, res) =>
    sendRemembered(req, res, async (document) => {
      const shares = await endpoints.mySharedEndpoints(principalOf(res), req.params.xid);
      return { DATA_TYPE: 'endpoint_list', DATA: shares.map(document) };
    }),
  );

  return router;
}
