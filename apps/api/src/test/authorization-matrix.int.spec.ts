import type { Response } from 'supertest';
import { BACKENDS, startApi, type Api } from './harness';

/**
 * Every operation against each relation of the caller to the endpoint, on a public and a private
 * endpoint, and on a deleted one: the status and error code of each cell.
 */
type Relation = {
  name: string;
  caller: string;
  grant?: { role: string; to: string };
  /** what the relation amounts to for the spec's rules */
  rights: 'administrator' | 'monitor' | 'none';
};

const RELATIONS: Relation[] = [
  { name: 'owner', caller: 'olivia', rights: 'administrator' },
  { name: 'identity linked to the owner', caller: 'olivia@work.example.org', rights: 'administrator' },
  { name: 'administrator (identity role)', caller: 'rita', grant: { role: 'administrator', to: 'rita' }, rights: 'administrator' },
  { name: 'administrator (group role)', caller: 'gus', grant: { role: 'administrator', to: 'staff' }, rights: 'administrator' },
  { name: 'activity_monitor (identity role)', caller: 'rita', grant: { role: 'activity_monitor', to: 'rita' }, rights: 'monitor' },
  { name: 'activity_monitor (group role)', caller: 'gus', grant: { role: 'activity_monitor', to: 'staff' }, rights: 'monitor' },
  { name: 'access_manager (identity role)', caller: 'rita', grant: { role: 'access_manager', to: 'rita' }, rights: 'none' },
  { name: 'access_manager (group role)', caller: 'gus', grant: { role: 'access_manager', to: 'staff' }, rights: 'none' },
  { name: 'activity_manager (identity role)', caller: 'rita', grant: { role: 'activity_manager', to: 'rita' }, rights: 'none' },
  { name: 'stranger', caller: 'stan', rights: 'none' },
];

interface Target {
  endpointId: string;
  serverId: number;
  /** The owner's administrator role, and a role of a bystander identity (not a caller). */
  ownerRoleId: string;
  extraRoleId: string;
  extraId: string;
}

type Operation = {
  name: string;
  /** who may: the spec's rule for the operation (catalogue features: monitor = administrator or activity_monitor; role = any role) */
  needs: 'view' | 'administrator' | 'anyone' | 'monitor' | 'role';
  success: number;
  call: (api: Api, token: string, t: Target) => Promise<Response>;
};

const OPERATIONS: Operation[] = [
  { name: 'get endpoint', needs: 'view', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}`) },
  {
    name: 'create shared endpoint on it',
    needs: 'administrator',
    success: 201,
    call: (a, tk, t) =>
      a.as(tk).post('/shared_endpoint', { DATA_TYPE: 'shared_endpoint', display_name: `share ${Math.random()}`, host_endpoint: t.endpointId, host_path: '/~/' }),
  },
  { name: 'update endpoint', needs: 'administrator', success: 200, call: (a, tk, t) => a.as(tk).put(`/endpoint/${t.endpointId}`, { description: 'changed' }) },
  { name: 'delete endpoint', needs: 'administrator', success: 200, call: (a, tk, t) => a.as(tk).delete(`/endpoint/${t.endpointId}`) },
  { name: 'my effective pause rules', needs: 'view', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/my_effective_pause_rule_list`) },
  { name: 'server list', needs: 'view', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/server_list`) },
  { name: 'get server', needs: 'view', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/server/${t.serverId}`) },
  { name: 'add server', needs: 'administrator', success: 201, call: (a, tk, t) => a.as(tk).post(`/endpoint/${t.endpointId}/server`, { hostname: 'new.example.org' }) },
  { name: 'update server', needs: 'administrator', success: 200, call: (a, tk, t) => a.as(tk).put(`/endpoint/${t.endpointId}/server/${t.serverId}`, { port: 2812 }) },
  { name: 'delete server', needs: 'administrator', success: 200, call: (a, tk, t) => a.as(tk).delete(`/endpoint/${t.endpointId}/server/${t.serverId}`) },
  { name: 'my shared endpoint list', needs: 'anyone', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/my_shared_endpoint_list`) },
  { name: 'shares of the host', needs: 'monitor', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/shared_endpoint_list`) },
  { name: 'role list', needs: 'role', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/role_list`) },
  { name: 'get role', needs: 'role', success: 200, call: (a, tk, t) => a.as(tk).get(`/endpoint/${t.endpointId}/role/${t.ownerRoleId}`) },
  {
    name: 'add role',
    needs: 'administrator',
    success: 201,
    call: (a, tk, t) => a.as(tk).post(`/endpoint/${t.endpointId}/role`, { principal_type: 'identity', principal: t.extraId, role: 'administrator' }),
  },
  { name: 'delete role', needs: 'administrator', success: 200, call: (a, tk, t) => a.as(tk).delete(`/endpoint/${t.endpointId}/role/${t.extraRoleId}`) },
];

function allowed(op: Operation, relation: Relation, isPublic: boolean): boolean {
  if (op.needs === 'anyone') return true;
  if (op.needs === 'administrator') return relation.rights === 'administrator';
  if (op.needs === 'monitor') return relation.rights !== 'none';
  if (op.needs === 'role') return relation.rights !== 'none' || relation.grant !== undefined;
  return isPublic || relation.rights !== 'none';
}

describe.each(BACKENDS)('authorization matrix on $name', (backend) => {
  let api: Api;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    api = await startApi(backend);
    for (const username of ['olivia', 'olivia@work.example.org', 'rita', 'gus', 'stan', 'extra']) {
      tokens[username] = (await api.world.user(username)).token;
    }
    await api.world.services.admin.identities.linkIdentities('olivia@work.example.org', 'olivia');
    await api.world.services.admin.identities.addGroup('staff');
    await api.world.services.admin.identities.addGroupMember('staff', 'gus');
    await api.world.subscriptionFor('olivia');
  });
  afterAll(() => api.close());

  async function arrange(relation: Relation, isPublic: boolean): Promise<Target> {
    const created = await api.as(tokens.olivia).post('/endpoint', {
      display_name: `endpoint ${Math.random()}`,
      public: isPublic,
      subscription_id: 'DEFAULT',
      DATA: [{ hostname: 'gridftp.example.org' }],
    });
    expect(created.status).toBe(201);
    if (relation.grant) await api.world.services.admin.endpoints.grantRole(created.body.id, relation.grant.role, relation.grant.to);
    const admin = api.world.services.admin;
    const ownerRoleId = (await admin.endpoints.listRoles(created.body.id)).find((r) => r.principal === 'olivia')!.id;
    const extraRoleId = await admin.endpoints.grantRole(created.body.id, 'activity_monitor', 'extra');
    const extraId = (await api.world.uow.repositories.identities.findByUsername('extra'))!.id;
    return { endpointId: created.body.id, serverId: 1, ownerRoleId, extraRoleId, extraId };
  }

  // access_manager exists only on shares (the operator cannot grant it on a host either): its matrix is the share's below
  describe.each(RELATIONS.filter((r) => r.grant?.role !== 'access_manager'))('$name', (relation) => {
    describe.each([true, false])('public=%s', (isPublic) => {
      it.each(OPERATIONS)('$name', async (op) => {
        const target = await arrange(relation, isPublic);
        const response = await op.call(api, tokens[relation.caller], target);
        if (allowed(op, relation, isPublic)) {
          expect({ status: response.status, body: response.body }).toMatchObject({ status: op.success });
        } else {
          expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 'PermissionDenied' });
          expect(response.body.message).toContain(target.endpointId);
        }
      });
    });
  });

  describe('access rules of a share', () => {
    const RULE_OPERATIONS: { name: string; success: number; call: (token: string, share: string, ruleId: string) => Promise<Response> }[] = [
      { name: 'access list', success: 200, call: (tk, share) => api.as(tk).get(`/endpoint/${share}/access_list`) },
      { name: 'get rule', success: 200, call: (tk, share, rule) => api.as(tk).get(`/endpoint/${share}/access/${rule}`) },
      { name: 'add rule', success: 201, call: (tk, share) => api.as(tk).post(`/endpoint/${share}/access`, { principal_type: 'all_authenticated_users', principal: '', path: '/open/', permissions: 'r' }) },
      { name: 'update rule', success: 200, call: (tk, share, rule) => api.as(tk).put(`/endpoint/${share}/access/${rule}`, { permissions: 'rw' }) },
      { name: 'delete rule', success: 200, call: (tk, share, rule) => api.as(tk).delete(`/endpoint/${share}/access/${rule}`) },
    ];

    describe.each(RELATIONS)('$name (role on the share)', (relation) => {
      it.each(RULE_OPERATIONS)('$name', async (op) => {
        const host = await arrange(RELATIONS[0], true);
        const share = (await api.as(tokens.olivia).post('/shared_endpoint', { display_name: `share ${Math.random()}`, host_endpoint: host.endpointId, host_path: '/~/' })).body.id;
        if (relation.grant) await api.world.services.admin.endpoints.grantRole(share, relation.grant.role, relation.grant.to);
        const rule = (await api.as(tokens.olivia).post(`/endpoint/${share}/access`, { principal_type: 'identity', principal: host.extraId, path: '/', permissions: 'r' })).body.access_id;
        const response = await op.call(tokens[relation.caller], share, rule);
        if (relation.rights === 'administrator' || relation.grant?.role === 'access_manager') {
          expect({ status: response.status, body: response.body }).toMatchObject({ status: op.success });
        } else {
          expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 'PermissionDenied' });
        }
      });
    });
  });

  describe.each(['olivia', 'stan'])('deleted endpoint, caller %s', (caller) => {
    it.each(OPERATIONS)('$name answers 409 EndpointDeleted', async (op) => {
      const target = await arrange(RELATIONS[0], true);
      expect((await api.as(tokens.olivia).delete(`/endpoint/${target.endpointId}`)).status).toBe(200);
      const response = await op.call(api, tokens[caller], target);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 409, code: 'EndpointDeleted' });
    });
  });

  describe('no or bad token', () => {
    it.each(OPERATIONS)('$name answers 401 ClientError.AuthenticationFailed', async (op) => {
      const target = await arrange(RELATIONS[0], true);
      for (const token of ['', 'xfer_not_a_token']) {
        const response = await op.call(api, token, target);
        expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: 'ClientError.AuthenticationFailed' });
      }
    });
  });
});
