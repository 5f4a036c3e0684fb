import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { openApiDocument } from '../http/openapi';
import { BACKENDS, startApi, V } from './harness';

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document with every operation of the spec and of the catalogue features', async () => {
    const api = await SwaggerParser.validate(structuredClone(openApiDocument) as unknown as OpenAPIV3_1.Document);
    const operations = Object.values(api.paths ?? {}).flatMap((item) =>
      ['get', 'post', 'put', 'delete'].flatMap((m) => ((item as Record<string, { operationId?: string }>)[m] ? [(item as Record<string, { operationId: string }>)[m].operationId] : [])),
    );
    expect(operations.filter((o) => o !== 'openApi').sort()).toEqual(
      [
        ...['addServer', 'createEndpoint', 'createSharedEndpoint', 'deleteEndpoint', 'deleteServer', 'getEndpoint', 'getServer', 'getServerList', 'myEffectivePauseRules', 'mySharedEndpoints', 'updateEndpoint', 'updateServer'],
        ...['addEndpointRole', 'deleteEndpointRole', 'endpointRoleList', 'getEndpointRole', 'sharedEndpointList'],
        ...['addEndpointAclRule', 'deleteEndpointAclRule', 'endpointAclList', 'getEndpointAclRule', 'updateEndpointAclRule', 'endpointSearch'],
        // what today's SDK calls beyond them
        ...['setSubscription', 'setSubscriptionAdminVerified', 'taskList', 'endpointManagerTaskList', 'monitoredEndpoints', 'endpointManagerGetEndpoint', 'hostedEndpointList', 'endpointManagerAclList'],
        ...['pauseRuleList', 'createPauseRule', 'getPauseRule', 'updatePauseRule', 'deletePauseRule'],
        // files on an endpoint
        ...['operationLs', 'operationStat', 'operationMkdir', 'operationRename'],
        // transfer and delete tasks
        ...['endpointManagerGetTask', 'endpointManagerCancelTasks'],
        ...['submissionId', 'submitTransfer', 'submitDelete', 'getTask', 'updateTask', 'cancelTask', 'taskEventList', 'taskSuccessfulTransfers', 'taskSkippedErrors', 'taskPauseInfo'],
        // xfer's own: the data nodes of an endpoint administrator
        'dataNodeList',
      ].sort(),
    );
  });

  it('is served without a token at /v0.10/openapi.json', async () => {
    const api = await startApi(BACKENDS[0]);
    try {
      const res = await api.http.get(`${V}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    } finally {
      await api.close();
    }
  });
});
