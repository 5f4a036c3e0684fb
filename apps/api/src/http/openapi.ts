import { ENDPOINT_DOCUMENT_KEYS } from './v010/documents';
import { ENDPOINT_FIELDS } from './v010/endpointFields';

/**
 * The OpenAPI 3.1 description of the endpoint management API, served at /v0.10/openapi.json.
 * The end-to-end tests check every response the API gives against it.
 */
const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const ENDPOINT_FIELD_SCHEMAS: Record<string, object> = {
  ...Object.fromEntries(ENDPOINT_FIELDS.map((f) => [f.name, f.schema])),
  DATA: { type: 'array', items: ref('Server') },
};

const serverProperties = {
  DATA_TYPE: { const: 'server' },
  id: { type: 'integer' },
  hostname: nullable('string'),
  port: nullable('integer', { minimum: 1, maximum: 65535 }),
  scheme: { enum: ['gsiftp', 'ftp', null] },
  subject: nullable('string'),
  incoming_data_port_start: nullable('integer'),
  incoming_data_port_end: nullable('integer'),
  outgoing_data_port_start: nullable('integer'),
  outgoing_data_port_end: nullable('integer'),
  uri: nullable('string'),
  is_connected: nullable('boolean'),
  is_paused: nullable('boolean'),
};

const FILE_TIME = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\+00:00$' };
const FILE_PROPERTIES = {
  DATA_TYPE: { const: 'file' },
  name: { type: 'string' },
  type: { enum: ['file', 'dir', 'invalid_symlink'] },
  link_target: nullable('string'),
  link_size: nullable('integer'),
  link_last_modified: { oneOf: [FILE_TIME, { type: 'null' }] },
  link_user: nullable('string'),
  link_group: nullable('string'),
  size: { type: 'integer', minimum: 0 },
  last_modified: FILE_TIME,
  permissions: { type: 'string', pattern: '^[0-7]{4}$' },
  user: nullable('string'),
  group: nullable('string'),
};

const documented = (properties: Record<string, object>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false });
const resultSchema = (dataType: string, extra: Record<string, object> = {}, required: string[] = []) =>
  documented(
    { DATA_TYPE: { const: dataType }, code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' }, resource: { type: 'string' }, ...extra },
    ['DATA_TYPE', 'code', 'message', 'request_id', 'resource', ...required],
  );

const errors = { default: { description: 'An error document', content: json(ref('Error')) } };
const taskId = { name: 'task_id', in: 'path', required: true, description: 'Task id', schema: { type: 'string' } };
const xid = { name: 'endpoint_xid', in: 'path', required: true, description: 'Endpoint id (or, on get and delete, its deprecated canonical name)', schema: { type: 'string' } };
const serverId = { name: 'server_id', in: 'path', required: true, schema: { type: 'integer' } };
const roleId = { name: 'role_id', in: 'path', required: true, schema: { type: 'string' } };
const accessId = { name: 'access_id', in: 'path', required: true, schema: { type: 'string' } };
const ok = (description: string, schema: object) => ({ description, content: json(schema) });
const body = (schema: object) => ({ required: true, content: json(schema) });

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'xfer endpoint management API',
    version: '0.10',
    description: 'Endpoint, server and shared-endpoint documents, wire-compatible with the Globus Transfer API v0.10 clients.',
  },
  servers: [{ url: '/v0.10' }],
  security: [{ bearer: [] }],
  paths: {
    '/endpoint': {
      post: { operationId: 'createEndpoint', summary: 'Create endpoint', requestBody: body(ref('EndpointInput')), responses: { '201': ok('Created', ref('EndpointCreateResult')), ...errors } },
    },
    '/shared_endpoint': {
      post: { operationId: 'createSharedEndpoint', summary: 'Create shared endpoint', requestBody: body(ref('SharedEndpointInput')), responses: { '201': ok('Created', ref('EndpointCreateResult')), ...errors } },
    },
    '/endpoint/{endpoint_xid}': {
      parameters: [xid],
      get: {
        operationId: 'getEndpoint',
        summary: 'Get endpoint by id',
        parameters: [{ name: 'fields', in: 'query', required: false, description: 'Comma-separated keys to include; `server` includes DATA', schema: { type: 'string' } }],
        responses: { '200': ok('The endpoint document', ref('Endpoint')), ...errors },
      },
      put: { operationId: 'updateEndpoint', summary: 'Update endpoint by id', requestBody: body(ref('EndpointInput')), responses: { '200': ok('Updated', ref('Result')), ...errors } },
      delete: { operationId: 'deleteEndpoint', summary: 'Delete endpoint by id', responses: { '200': ok('Deleted', ref('Result')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/my_effective_pause_rule_list': {
      parameters: [xid],
      get: { operationId: 'myEffectivePauseRules', summary: 'Get my effective endpoint pause rules', responses: { '200': ok('Pause rules', ref('PauseRuleList')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/server_list': {
      parameters: [xid],
      get: { operationId: 'getServerList', summary: 'Get endpoint server list', responses: { '200': ok('Servers', ref('ServerList')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/server': {
      parameters: [xid],
      post: { operationId: 'addServer', summary: 'Add endpoint server', requestBody: body(ref('ServerInput')), responses: { '201': ok('Created', ref('ServerAddResult')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/server/{server_id}': {
      parameters: [xid, serverId],
      get: { operationId: 'getServer', summary: 'Get endpoint server by id', responses: { '200': ok('The server document', ref('Server')), ...errors } },
      put: { operationId: 'updateServer', summary: 'Update endpoint server by id', requestBody: body(ref('ServerInput')), responses: { '200': ok('Updated', ref('Result')), ...errors } },
      delete: { operationId: 'deleteServer', summary: 'Delete endpoint server by id', responses: { '200': ok('Deleted', ref('Result')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/my_shared_endpoint_list': {
      parameters: [xid],
      get: { operationId: 'mySharedEndpoints', summary: 'Get shared endpoint list', responses: { '200': ok('Shares the caller administers or manages access to', ref('EndpointList')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/shared_endpoint_list': {
      parameters: [xid],
      get: {
        operationId: 'sharedEndpointList',
        summary: 'Shares of a host (administrators and activity monitors of the host): those the caller could GET',
        parameters: [
          { name: 'max_results', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } },
          { name: 'next_token', in: 'query', required: false, description: 'Opaque: the previous page\'s next_token', schema: { type: 'string' } },
        ],
        responses: { '200': ok('A page of shares', ref('SharedEndpointList')), ...errors },
      },
    },
    '/endpoint_search': {
      get: {
        operationId: 'endpointSearch',
        summary: 'Search endpoints the caller could GET (full text ranked; scopes and filters)',
        parameters: ['filter_fulltext', 'filter_scope', 'filter_owner_id', 'filter_host_endpoint', 'filter_non_functional', 'filter_entity_type', 'limit', 'offset', 'fields'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
        responses: { '200': ok('A page of endpoints', ref('EndpointSearchResult')), ...errors },
      },
    },
    '/endpoint/{endpoint_xid}/access_list': {
      parameters: [xid],
      get: { operationId: 'endpointAclList', summary: 'Access rules of a share, implicit ones included (administrators and access managers)', responses: { '200': ok('Access rules', ref('AccessList')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/access': {
      parameters: [xid],
      post: { operationId: 'addEndpointAclRule', summary: 'Add an access rule to a share', requestBody: body(ref('AccessInput')), responses: { '201': ok('Created', ref('AccessCreateResult')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/access/{access_id}': {
      parameters: [xid, accessId],
      get: { operationId: 'getEndpointAclRule', summary: 'One access rule', responses: { '200': ok('The access rule', ref('Access')), ...errors } },
      put: { operationId: 'updateEndpointAclRule', summary: 'Change permissions and/or expiration_date', requestBody: body(ref('AccessInput')), responses: { '200': ok('Updated', ref('Result')), ...errors } },
      delete: { operationId: 'deleteEndpointAclRule', summary: 'Delete an access rule', responses: { '200': ok('Deleted', ref('Result')), ...errors } },
    },
    '/operation/endpoint/{endpoint_xid}/ls': {
      parameters: [xid],
      get: {
        operationId: 'operationLs',
        summary: "List a directory of the endpoint's storage (readers: host administrators; on a share, its managers and its access rules)",
        parameters: [
          { name: 'path', in: 'query', required: false, description: 'Absolute, or /~/ for the home (the default)', schema: { type: 'string' } },
          { name: 'show_hidden', in: 'query', required: false, schema: { enum: ['true', 'false', '1', '0'] } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100000 } },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'orderby', in: 'query', required: false, description: "e.g. 'type ASC,name DESC'", schema: { type: 'string' } },
          { name: 'filter', in: 'query', required: false, description: "Clauses joined by '/', e.g. 'type:file/name:~*.png'; repeated: any of them", schema: { type: 'string' } },
          { name: 'local_user', in: 'query', required: false, description: 'Accepted; no effect', schema: { type: 'string' } },
        ],
        responses: { '200': ok('One page of the directory', ref('FileList')), ...errors },
      },
    },
    '/operation/endpoint/{endpoint_xid}/stat': {
      parameters: [xid],
      get: {
        operationId: 'operationStat',
        summary: 'Describe one file or directory',
        parameters: [{ name: 'path', in: 'query', required: true, schema: { type: 'string' } }],
        responses: { '200': ok('The file document', ref('File')), ...errors },
      },
    },
    '/operation/endpoint/{endpoint_xid}/mkdir': {
      parameters: [xid],
      post: {
        operationId: 'operationMkdir',
        summary: 'Make a directory (writers only; its parent must exist)',
        requestBody: body(documented({ DATA_TYPE: { const: 'mkdir' }, path: { type: 'string' }, local_user: { type: 'string' } }, ['path'])),
        responses: { '200': ok('Made', resultSchema('mkdir_result')), ...errors },
      },
    },
    '/operation/endpoint/{endpoint_xid}/rename': {
      parameters: [xid],
      post: {
        operationId: 'operationRename',
        summary: 'Move a file or directory (writers of both paths; the new parent must exist)',
        requestBody: body(documented({ DATA_TYPE: { const: 'rename' }, old_path: { type: 'string' }, new_path: { type: 'string' }, local_user: { type: 'string' } }, ['old_path', 'new_path'])),
        responses: { '200': ok('Renamed', ref('Result')), ...errors },
      },
    },
    '/endpoint/{endpoint_xid}/role_list': {
      parameters: [xid],
      get: { operationId: 'endpointRoleList', summary: 'Roles on the endpoint (callers holding any role)', responses: { '200': ok('Roles', ref('RoleList')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/role': {
      parameters: [xid],
      post: { operationId: 'addEndpointRole', summary: 'Grant a role (administrators; managed endpoints)', requestBody: body(ref('RoleInput')), responses: { '201': ok('The role granted', ref('Role')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/role/{role_id}': {
      parameters: [xid, roleId],
      get: { operationId: 'getEndpointRole', summary: 'One role', responses: { '200': ok('The role document', ref('Role')), ...errors } },
      delete: { operationId: 'deleteEndpointRole', summary: 'Remove a role (administrators; not the owner\'s)', responses: { '200': ok('Deleted', ref('Result')), ...errors } },
    },
    '/endpoint/{endpoint_xid}/subscription': {
      parameters: [xid],
      put: {
        operationId: 'setSubscription',
        summary: 'Set the subscription alone (administrators): a subscription id, DEFAULT or null, by the update\'s rules',
        requestBody: body({ type: 'object', properties: { subscription_id: nullable('string') }, required: ['subscription_id'], additionalProperties: false }),
        responses: { '200': ok('Updated', ref('Result')), ...errors },
      },
    },
    '/endpoint/{endpoint_xid}/subscription_admin_verified': {
      parameters: [xid],
      put: {
        operationId: 'setSubscriptionAdminVerified',
        summary: "true by an administrator of the endpoint's subscription; false also by the endpoint's administrators; 400 without a subscription",
        requestBody: body({ type: 'object', properties: { subscription_admin_verified: { type: 'boolean' } }, required: ['subscription_admin_verified'], additionalProperties: false }),
        responses: { '200': ok('Updated', ref('Result')), ...errors },
      },
    },
    '/submission_id': {
      get: { operationId: 'submissionId', summary: 'A submission id: a task submitted with it is made once', responses: { '200': ok('An id', documented({ DATA_TYPE: { const: 'submission_id' }, value: { type: 'string' } }, ['DATA_TYPE', 'value'])), ...errors } },
    },
    '/transfer': {
      post: {
        operationId: 'submitTransfer',
        summary: 'Submit a transfer task (TransferData); every option honoured or refused by name. 202 Accepted, or 200 Duplicate for a submission id used before',
        requestBody: body({ type: 'object' }),
        responses: { '202': ok('Accepted', ref('SubmitResult')), '200': ok('Duplicate', ref('SubmitResult')), ...errors },
      },
    },
    '/delete': {
      post: {
        operationId: 'submitDelete',
        summary: 'Submit a delete task (DeleteData: endpoint, paths, recursive, ignore_missing)',
        requestBody: body({ type: 'object' }),
        responses: { '202': ok('Accepted', ref('SubmitResult')), '200': ok('Duplicate', ref('SubmitResult')), ...errors },
      },
    },
    '/task_list': {
      get: {
        operationId: 'taskList',
        summary: "The caller's tasks (and their linked identities'), newest first; filter=status:<...>/type:<...>, limit (1-1000), offset",
        responses: { '200': ok('Tasks', ref('TaskList')), ...errors },
      },
    },
    '/task/{task_id}': {
      parameters: [taskId],
      get: { operationId: 'getTask', summary: 'A task of the caller', responses: { '200': ok('The task document', ref('Task')), ...errors } },
      put: {
        operationId: 'updateTask',
        summary: 'Change the label or deadline of an unfinished task',
        requestBody: body(documented({ DATA_TYPE: { const: 'task' }, label: { type: ['string', 'null'] }, deadline: { type: 'string' } }, [])),
        responses: { '200': ok('Updated', resultSchema('result')), ...errors },
      },
    },
    '/task/{task_id}/cancel': {
      parameters: [taskId],
      post: { operationId: 'cancelTask', summary: 'Cancel an unfinished task (Canceled); a finished one answers TaskComplete', responses: { '200': ok('Canceled or complete', resultSchema('result')), ...errors } },
    },
    '/task/{task_id}/event_list': {
      parameters: [taskId],
      get: { operationId: 'taskEventList', summary: "A task's events, newest first; filter=is_error:1, limit, offset", responses: { '200': ok('Events', ref('EventList')), ...errors } },
    },
    '/task/{task_id}/successful_transfers': {
      parameters: [taskId],
      get: { operationId: 'taskSuccessfulTransfers', summary: 'The files a task moved, after marker', responses: { '200': ok('Files', ref('SuccessfulTransfers')), ...errors } },
    },
    '/task/{task_id}/skipped_errors': {
      parameters: [taskId],
      get: { operationId: 'taskSkippedErrors', summary: 'The files a task skipped with skip_source_errors, after marker', responses: { '200': ok('Files', ref('SkippedErrors')), ...errors } },
    },
    '/task/{task_id}/pause_info': {
      parameters: [taskId],
      get: { operationId: 'taskPauseInfo', summary: 'Why a task is paused', responses: { '200': ok('Pause information', { type: 'object' }), ...errors } },
    },
    '/endpoint_manager/task_list': {
      get: { operationId: 'endpointManagerTaskList', summary: 'Tasks on endpoints the caller administers, manages or monitors the activity of, whoever submitted them', responses: { '200': ok('Tasks', ref('EndpointManagerTaskList')), ...errors } },
    },
    '/endpoint_manager/task/{task_id}': {
      parameters: [taskId],
      get: { operationId: 'endpointManagerGetTask', summary: 'A task on an endpoint the caller monitors', responses: { '200': ok('The task document', ref('Task')), ...errors } },
    },
    '/endpoint_manager/admin_cancel': {
      post: {
        operationId: 'endpointManagerCancelTasks',
        summary: "Cancel tasks as an administrator or activity manager of their endpoints, with a message to their owners (all or none)",
        requestBody: body(documented({ DATA_TYPE: { const: 'admin_cancel' }, task_id_list: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } }, ['task_id_list', 'message'])),
        responses: { '202': ok('Canceled', { type: 'object', properties: { DATA_TYPE: { const: 'admin_cancel' } }, required: ['DATA_TYPE'] }), ...errors },
      },
    },
    '/endpoint_manager/monitored_endpoints': {
      get: { operationId: 'monitoredEndpoints', summary: 'Endpoints the caller holds administrator, activity_manager or activity_monitor on', responses: { '200': ok('Endpoints', ref('MonitoredEndpointList')), ...errors } },
    },
    '/data_node_list': {
      get: { operationId: 'dataNodeList', summary: "xfer's own: the data nodes serving endpoints the caller administers, by name, each with its last contact and those endpoints", responses: { '200': ok('Data nodes', ref('DataNodeList')), ...errors } },
    },
    '/endpoint_manager/endpoint/{endpoint_xid}': {
      parameters: [xid],
      get: { operationId: 'endpointManagerGetEndpoint', summary: 'An endpoint, to its monitors', responses: { '200': ok('The endpoint document', ref('Endpoint')), ...errors } },
    },
    '/endpoint_manager/endpoint/{endpoint_xid}/hosted_endpoint_list': {
      parameters: [xid],
      get: { operationId: 'hostedEndpointList', summary: 'Every share of a host, to the host\'s monitors', responses: { '200': ok('Shares', ref('EndpointList')), ...errors } },
    },
    '/endpoint_manager/endpoint/{endpoint_xid}/access_list': {
      parameters: [xid],
      get: { operationId: 'endpointManagerAclList', summary: 'Access rules of a share, to monitors of the share or its host', responses: { '200': ok('Access rules', ref('AccessList')), ...errors } },
    },
    '/endpoint_manager/pause_rule_list': {
      get: {
        operationId: 'pauseRuleList',
        summary: 'Pause rules of the endpoints the caller manages them on (administrators, activity managers)',
        parameters: [
          { name: 'filter_endpoint', in: 'query', required: false, description: 'Comma-separated endpoint ids, at most 100 distinct', schema: { type: 'string' } },
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
          { name: 'limit', in: 'query', required: false, description: 'Rules a page, 1 to 1000 (default 1000)', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
        ],
        responses: { '200': ok('Pause rules', ref('PauseRuleFullList')), ...errors },
      },
    },
    '/endpoint_manager/pause_rule': {
      post: { operationId: 'createPauseRule', summary: 'Add a pause rule (administrators, activity managers)', requestBody: body(ref('PauseRuleInput')), responses: { '200': ok('The pause rule', ref('PauseRule')), ...errors } },
    },
    '/endpoint_manager/pause_rule/{pause_rule_id}': {
      parameters: [{ name: 'pause_rule_id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getPauseRule', summary: 'One pause rule', responses: { '200': ok('The pause rule', ref('PauseRule')), ...errors } },
      put: { operationId: 'updatePauseRule', summary: 'Change a pause rule', requestBody: body(ref('PauseRuleInput')), responses: { '200': ok('The pause rule', ref('PauseRule')), ...errors } },
      delete: { operationId: 'deletePauseRule', summary: 'Delete a pause rule', responses: { '200': ok('Deleted', ref('Result')), ...errors } },
    },
    '/openapi.json': {
      get: { operationId: 'openApi', summary: 'This document', security: [], responses: { '200': ok('OpenAPI 3.1', { type: 'object' }) } },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An access token (`xfer token issue`, or from the configured authorization server)' } },
    schemas: {
      Error: documented(
        { code: { type: 'string' }, message: { type: 'string' }, request_id: { type: 'string' }, resource: { type: 'string' }, required_scopes: { type: 'array', items: { type: 'string' } } },
        ['code', 'message', 'request_id', 'resource'],
      ),
      Result: resultSchema('result'),
      EndpointCreateResult: resultSchema(
        'endpoint_create_result',
        { id: { type: 'string' }, canonical_name: { type: 'string' }, vendor_connect_setup_key: nullable('string'), globus_connect_setup_key: nullable('string') },
        ['id', 'canonical_name', 'vendor_connect_setup_key', 'globus_connect_setup_key'],
      ),
      ServerAddResult: resultSchema('endpoint_server_add_result', { id: { type: 'integer' } }, ['id']),
      Endpoint: documented(ENDPOINT_FIELD_SCHEMAS, ['DATA_TYPE']),
      EndpointList: documented({ DATA_TYPE: { const: 'endpoint_list' }, DATA: { type: 'array', items: ref('Endpoint') } }, ['DATA_TYPE', 'DATA']),
      Server: documented(serverProperties, Object.keys(serverProperties)),
      ServerList: documented({ DATA_TYPE: { const: 'endpoint_server_list' }, DATA: { type: 'array', items: ref('Server') } }, ['DATA_TYPE', 'DATA']),
      PauseRuleLimited: documented(
        {
          DATA_TYPE: { const: 'pause_rule_limited' },
          id: { type: 'string' },
          message: { type: 'string' },
          start_time: nullable('string'),
          endpoint_id: { type: 'string' },
          identity_id: nullable('string'),
          pause_ls: { type: 'boolean' },
          pause_mkdir: { type: 'boolean' },
          pause_rename: { type: 'boolean' },
          pause_task_delete: { type: 'boolean' },
          pause_task_transfer_write: { type: 'boolean' },
          pause_task_transfer_read: { type: 'boolean' },
          editable: { const: false },
        },
        ['DATA_TYPE', 'id', 'message', 'endpoint_id', 'editable'],
      ),
      PauseRule: documented(
        {
          DATA_TYPE: { const: 'pause_rule' },
          id: { type: 'string' },
          message: { type: 'string' },
          start_time: nullable('string'),
          endpoint_id: { type: 'string' },
          identity_id: nullable('string'),
          modified_by: { type: 'string' },
          modified_by_id: { type: 'string' },
          created_by_host_manager: { type: 'boolean' },
          editable: { const: true },
          pause_ls: { type: 'boolean' },
          pause_mkdir: { type: 'boolean' },
          pause_rename: { type: 'boolean' },
          pause_task_delete: { type: 'boolean' },
          pause_task_transfer_write: { type: 'boolean' },
          pause_task_transfer_read: { type: 'boolean' },
        },
        ['DATA_TYPE', 'id', 'message', 'endpoint_id', 'editable'],
      ),
      DataNodeList: documented({ DATA_TYPE: { const: 'data_node_list' }, DATA: { type: 'array', items: ref('DataNode') } }, ['DATA_TYPE', 'DATA']),
      DataNode: documented(
        {
          DATA_TYPE: { const: 'data_node' },
          id: { type: 'string' },
          name: { type: 'string' },
          url: { type: 'string' },
          last_contact: { type: ['string', 'null'] },
          endpoints: { type: 'array', items: documented({ id: { type: 'string' }, display_name: { type: ['string', 'null'] } }, ['id', 'display_name']) },
          gcs_administrator: { type: 'boolean', description: "Whether the caller administers the node's GCS endpoint (then its storage gateways and collections are listed)" },
          storage_gateways: { type: 'array', items: documented({ id: { type: 'string' }, display_name: { type: 'string' }, root: { type: 'string' } }, ['id', 'display_name', 'root']) },
          collections: { type: 'array', items: documented({ id: { type: 'string' }, display_name: { type: ['string', 'null'] }, collection_type: { enum: ['mapped', 'guest'] }, storage_gateway_id: { type: 'string' } }, ['id', 'display_name', 'collection_type', 'storage_gateway_id']) },
        },
        ['DATA_TYPE', 'id', 'name', 'url', 'last_contact', 'endpoints', 'gcs_administrator', 'storage_gateways', 'collections'],
      ),
      PauseRuleFullList: documented({ DATA_TYPE: { const: 'pause_rule_list' }, offset: { type: 'integer' }, limit: { type: 'integer' }, has_next_page: { type: 'boolean' }, DATA: { type: 'array', items: ref('PauseRule') } }, ['DATA_TYPE', 'offset', 'limit', 'has_next_page', 'DATA']),
      PauseRuleInput: {
        type: 'object',
        description: 'endpoint_id and message on create; the pause_* flags not given pause. The read-only fields of a GET are accepted and ignored.',
        properties: { DATA_TYPE: { const: 'pause_rule' }, endpoint_id: { type: 'string' }, message: { type: 'string' }, identity_id: nullable('string'), start_time: nullable('string') },
      },
      EndpointManagerTaskList: documented({ DATA_TYPE: { const: 'task_list' }, length: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, total: { type: 'integer' }, has_next_page: { type: 'boolean' }, last_key: { type: 'null' }, DATA: { type: 'array', items: ref('Task') } }, ['DATA_TYPE', 'DATA', 'has_next_page', 'total']),
      Task: { type: 'object', properties: { DATA_TYPE: { const: 'task' }, task_id: { type: 'string' }, type: { enum: ['TRANSFER', 'DELETE'] }, status: { enum: ['ACTIVE', 'INACTIVE', 'SUCCEEDED', 'FAILED'] } }, required: ['DATA_TYPE', 'task_id', 'type', 'status'] },
      TaskList: documented({ DATA_TYPE: { const: 'task_list' }, length: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, total: { type: 'integer' }, DATA: { type: 'array', items: ref('Task') } }, ['DATA_TYPE', 'length', 'limit', 'offset', 'total', 'DATA']),
      SubmitResult: resultSchema('transfer_result', { DATA_TYPE: { enum: ['transfer_result', 'delete_result'] }, task_id: { type: 'string' }, submission_id: { type: 'string' }, task_link: { type: 'object' } }, ['task_id', 'submission_id', 'task_link']),
      EventList: documented({ DATA_TYPE: { const: 'event_list' }, length: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' }, total: { type: 'integer' }, DATA: { type: 'array', items: documented({ DATA_TYPE: { const: 'event' }, code: { type: 'string' }, description: { type: 'string' }, details: { type: 'string' }, is_error: { type: 'boolean' }, time: { type: 'string' } }, ['DATA_TYPE', 'code', 'description', 'details', 'is_error', 'time']) } }, ['DATA_TYPE', 'DATA', 'total']),
      SuccessfulTransfers: documented({ DATA_TYPE: { const: 'successful_transfers' }, marker: { type: 'integer' }, next_marker: { type: ['integer', 'null'] }, DATA: { type: 'array', items: documented({ DATA_TYPE: { const: 'successful_transfer' }, source_path: { type: ['string', 'null'] }, destination_path: { type: ['string', 'null'] } }, ['DATA_TYPE', 'source_path', 'destination_path']) } }, ['DATA_TYPE', 'marker', 'next_marker', 'DATA']),
      SkippedErrors: documented({ DATA_TYPE: { const: 'skipped_errors' }, marker: { type: 'integer' }, next_marker: { type: ['integer', 'null'] }, DATA: { type: 'array', items: { type: 'object', properties: { DATA_TYPE: { const: 'skipped_error' } }, required: ['DATA_TYPE', 'source_path', 'error_code'] } } }, ['DATA_TYPE', 'marker', 'next_marker', 'DATA']),
      MonitoredEndpointList: documented(
        { DATA_TYPE: { const: 'endpoint_list' }, DATA: { type: 'array', items: ref('Endpoint') }, has_next_page: { const: false }, offset: { type: 'integer' }, limit: { type: 'integer' } },
        ['DATA_TYPE', 'DATA', 'has_next_page'],
      ),
      PauseRuleList: documented({ DATA_TYPE: { const: 'pause_rule_list' }, DATA: { type: 'array', items: ref('PauseRuleLimited') } }, ['DATA_TYPE', 'DATA']),
      EndpointInput: {
        type: 'object',
        description: 'A partial endpoint document: the fields to set (a full document from GET is accepted unchanged). Unknown keys are refused.',
        properties: { ...ENDPOINT_FIELD_SCHEMAS, DATA_TYPE: { const: 'endpoint' }, DATA: { type: 'array', items: ref('ServerInput') } },
      },
      SharedEndpointInput: {
        type: 'object',
        properties: {
          DATA_TYPE: { const: 'shared_endpoint' },
          display_name: { type: 'string' },
          host_endpoint: { type: 'string' },
          host_endpoint_id: { type: 'string' },
          host_path: { type: 'string' },
          description: nullable('string'),
          organization: nullable('string'),
        },
        required: ['host_path'],
      },
      ServerInput: { type: 'object', properties: { ...serverProperties, DATA_TYPE: { const: 'server' } } },
      Role: documented(
        {
          DATA_TYPE: { const: 'role' },
          id: { type: 'string' },
          principal_type: { enum: ['identity', 'group'] },
          principal: { type: 'string' },
          role: { enum: ['administrator', 'access_manager', 'activity_monitor', 'activity_manager'] },
        },
        ['DATA_TYPE', 'id', 'principal_type', 'principal', 'role'],
      ),
      SharedEndpointList: documented(
        { DATA_TYPE: { const: 'shared_endpoint_list' }, shared_endpoints: { type: 'array', items: ref('Endpoint') }, next_token: nullable('string') },
        ['DATA_TYPE', 'shared_endpoints', 'next_token'],
      ),
      Access: documented(
        {
          DATA_TYPE: { const: 'access' },
          id: nullable('string'),
          role_id: nullable('string'),
          role_type: { enum: ['administrator', 'access_manager', null] },
          principal_type: { enum: ['identity', 'group', 'all_authenticated_users', 'anonymous'] },
          principal: { type: 'string' },
          path: { type: 'string' },
          permissions: { enum: ['r', 'rw'] },
          notify_email: nullable('string'),
          notify_message: nullable('string'),
          create_time: nullable('string'),
          expiration_date: nullable('string'),
        },
        ['DATA_TYPE', 'id', 'role_id', 'role_type', 'principal_type', 'principal', 'path', 'permissions', 'notify_email', 'notify_message', 'create_time', 'expiration_date'],
      ),
      EndpointSearchResult: documented(
        {
          DATA_TYPE: { const: 'endpoint_list' },
          offset: { type: 'integer' },
          limit: { type: 'integer' },
          has_next_page: { type: 'boolean' },
          DATA: { type: 'array', items: { type: 'object', properties: { ...ENDPOINT_FIELD_SCHEMAS, _rank: { type: 'number' } }, required: ['DATA_TYPE', '_rank'], additionalProperties: false } },
        },
        ['DATA_TYPE', 'offset', 'limit', 'has_next_page', 'DATA'],
      ),
      AccessList: documented(
        { DATA_TYPE: { const: 'access_list' }, endpoint: { type: 'string' }, length: { type: 'integer' }, DATA: { type: 'array', items: ref('Access') } },
        ['DATA_TYPE', 'endpoint', 'length', 'DATA'],
      ),
      AccessCreateResult: resultSchema('access_create_result', { access_id: { type: 'string' } }, ['access_id']),
      AccessInput: {
        type: 'object',
        description: 'On create: principal_type, principal, path, permissions (and optionally notify_email, notify_message, expiration_date). On update: permissions and/or expiration_date.',
        properties: {
          DATA_TYPE: { const: 'access' },
          principal_type: { enum: ['identity', 'group', 'all_authenticated_users', 'anonymous'] },
          principal: { type: 'string' },
          path: { type: 'string' },
          permissions: { enum: ['r', 'rw'] },
          notify_email: nullable('string'),
          notify_message: nullable('string'),
          expiration_date: nullable('string'),
        },
      },
      File: documented(FILE_PROPERTIES, Object.keys(FILE_PROPERTIES)),
      FileList: documented(
        {
          DATA_TYPE: { const: 'file_list' },
          endpoint: { type: 'string' },
          path: { type: 'string' },
          absolute_path: nullable('string'),
          rename_supported: { type: 'boolean' },
          symlink_supported: { type: 'boolean' },
          length: { type: 'integer' },
          total: { type: 'integer' },
          offset: { type: 'integer' },
          limit: { type: 'integer' },
          DATA: { type: 'array', items: ref('File') },
        },
        ['DATA_TYPE', 'endpoint', 'path', 'absolute_path', 'rename_supported', 'symlink_supported', 'length', 'total', 'offset', 'limit', 'DATA'],
      ),
      RoleList: documented({ DATA_TYPE: { const: 'role_list' }, DATA: { type: 'array', items: ref('Role') } }, ['DATA_TYPE', 'DATA']),
      RoleInput: {
        type: 'object',
        properties: { DATA_TYPE: { const: 'role' }, principal_type: { enum: ['identity', 'group'] }, principal: { type: 'string' }, role: { enum: ['administrator', 'access_manager', 'activity_monitor'] } },
        required: ['principal_type', 'principal', 'role'],
        additionalProperties: false,
      },
    },
  },
};

// every document key has a schema: the description cannot fall behind the renderer
for (const key of ENDPOINT_DOCUMENT_KEYS) {
  if (!(key in ENDPOINT_FIELD_SCHEMAS)) throw new Error(`openapi: no schema for endpoint field ${key}`);
}
