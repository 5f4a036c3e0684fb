import { ENDPOINT_DOCUMENT_KEYS } from '../http/v010/documents';
import { BACKENDS, startApi, V, type Api } from './harness';

describe.each(BACKENDS)('endpoint management API on the wire (compat-notes), $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;

  beforeEach(async () => {
    api = await startApi(backend, { bodyLimit: '64kb' });
    alice = (await api.world.user('alice')).token;
    bob = (await api.world.user('bob')).token;
    await api.world.subscriptionFor('alice');
  });
  afterEach(() => api.close());

  const createServerEndpoint = async (body: Record<string, unknown> = {}) => {
    const res = await api.as(alice).post('/endpoint', { DATA_TYPE: 'endpoint', display_name: 'Lab', DATA: [{ DATA_TYPE: 'server', hostname: 'gridftp.example.org' }], ...body });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  describe('result documents', () => {
    it('answers a create with 201 endpoint_create_result', async () => {
      const res = await api.as(alice).post('/endpoint', { display_name: 'Lab' });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-transfer-api-version']).toBe('0.10');
      expect(res.body).toEqual({
        DATA_TYPE: 'endpoint_create_result',
        code: 'Created',
        message: 'Endpoint created successfully',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        canonical_name: `alice#${res.body.id}`,
        vendor_connect_setup_key: null,
        globus_connect_setup_key: null,
        request_id: expect.stringMatching(/^[A-Za-z0-9]{9}$/),
        resource: '/endpoint',
      });
    });

    it('gives a personal-client create (is_globus_connect) its setup key under both names', async () => {
      const res = await api.as(alice).post('/endpoint', { display_name: 'Laptop', is_globus_connect: true });
      expect(res.status).toBe(201);
      expect(res.body.globus_connect_setup_key).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.vendor_connect_setup_key).toBe(res.body.globus_connect_setup_key);
      const doc = await api.as(alice).get(`/endpoint/${res.body.id}`);
      expect(doc.body).toMatchObject({ is_globus_connect: true, vendor_connect_setup_key: res.body.globus_connect_setup_key });
      const servers = await api.as(alice).get(`/endpoint/${res.body.id}/server_list`);
      expect(servers.body).toEqual({ DATA_TYPE: 'endpoint_server_list', DATA: [expect.objectContaining({ id: 1, hostname: null, uri: null, is_connected: false })] });
      const add = await api.as(alice).post(`/endpoint/${res.body.id}/server`, { hostname: 'a.example.org' });
      expect(add.status).toBe(400);
      // servers in a personal-client create: refused naming the document's field
      const withServers = await api.as(alice).post('/endpoint', { display_name: 'Laptop', is_globus_connect: true, DATA: [{ hostname: 'a.example.org' }] });
      expect([withServers.status, withServers.body.code, withServers.body.message]).toEqual([400, 'BadRequest', "Field 'DATA' cannot be set when creating a personal-client endpoint"]);
    });

    it('answers update, delete and the server operations with their result documents', async () => {
      const id = await createServerEndpoint();
      const update = await api.as(alice).put(`/endpoint/${id}`, { DATA_TYPE: 'endpoint', description: 'New' });
      expect(update.status).toBe(200);
      expect(update.body).toEqual({ DATA_TYPE: 'result', code: 'Updated', message: 'Endpoint updated successfully', request_id: expect.any(String), resource: `/endpoint/${id}` });

      const add = await api.as(alice).post(`/endpoint/${id}/server`, { DATA_TYPE: 'server', hostname: 'second.example.org', port: 2812 });
      expect(add.status).toBe(201);
      expect(add.body).toEqual({
        DATA_TYPE: 'endpoint_server_add_result',
        code: 'Created',
        message: 'Server added to endpoint successfully',
        id: 2,
        request_id: expect.any(String),
        resource: `/endpoint/${id}/server`,
      });
      const server = await api.as(alice).get(`/endpoint/${id}/server/2`);
      expect(server.body).toMatchObject({ DATA_TYPE: 'server', id: 2, hostname: 'second.example.org', port: 2812, uri: 'gsiftp://second.example.org:2812' });

      const putServer = await api.as(alice).put(`/endpoint/${id}/server/2`, { DATA_TYPE: 'server', hostname: 'renamed.example.org' });
      expect(putServer.body).toMatchObject({ DATA_TYPE: 'result', code: 'Updated', message: 'Server updated successfully' });
      const list = await api.as(alice).get(`/endpoint/${id}/server_list`);
      expect(list.body.DATA.map((s: { hostname: string }) => s.hostname)).toEqual(['gridftp.example.org', 'renamed.example.org']);

      const delServer = await api.as(alice).delete(`/endpoint/${id}/server/2`);
      expect(delServer.status).toBe(200);
      expect(delServer.body).toMatchObject({ DATA_TYPE: 'result', code: 'Deleted', message: 'Server deleted successfully' });
      const gone = await api.as(alice).get(`/endpoint/${id}/server/2`);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('ClientError.NotFound.ServerNotFound');

      const del = await api.as(alice).delete(`/endpoint/${id}`);
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ DATA_TYPE: 'result', code: 'Deleted', message: 'Endpoint deleted successfully', resource: `/endpoint/${id}` });
    });

    it('creates a share with a shared_endpoint result and lists it on the host', async () => {
      const host = await createServerEndpoint({ subscription_id: 'DEFAULT' });
      const share = await api.as(alice).post('/shared_endpoint', { DATA_TYPE: 'shared_endpoint', display_name: 'Share', host_endpoint: host, host_path: '/~/share/', description: '' });
      expect(share.status).toBe(201);
      expect(share.body).toMatchObject({ DATA_TYPE: 'endpoint_create_result', code: 'Created', message: 'Shared endpoint created successfully', resource: '/shared_endpoint', globus_connect_setup_key: null });
      const list = await api.as(alice).get(`/endpoint/${host}/my_shared_endpoint_list`);
      expect(list.body).toEqual({ DATA_TYPE: 'endpoint_list', DATA: [expect.objectContaining({ DATA_TYPE: 'endpoint', id: share.body.id, owner_string: 'alice', display_name: 'Share', description: '' })] });
      const serverOnShare = await api.as(alice).get(`/endpoint/${share.body.id}/server_list`);
      expect(serverOnShare.status).toBe(400);
      expect(serverOnShare.body.message).toContain("doesn't have servers");
      const listOnShare = await api.as(alice).get(`/endpoint/${share.body.id}/my_shared_endpoint_list`);
      expect({ status: listOnShare.status, code: listOnShare.body.code }).toEqual({ status: 400, code: 'BadRequest' });
    });

    it('lists pause rules as pause_rule_list', async () => {
      const id = await createServerEndpoint();
      await api.world.services.admin.endpoints.addPauseRule(id, { message: 'Disk replacement' });
      const res = await api.as(alice).get(`/endpoint/${id}/my_effective_pause_rule_list`);
      expect(res.body).toEqual({ DATA_TYPE: 'pause_rule_list', DATA: [expect.objectContaining({ DATA_TYPE: 'pause_rule_limited', message: 'Disk replacement', editable: false })] });
    });

    it('gives every request its own request_id', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) ids.add((await api.as(alice).get('/endpoint/nope')).body.request_id);
      expect(ids.size).toBe(20);
    });
  });

  describe('the endpoint document', () => {
    it('carries every key, null when unset, and can be PUT back unchanged', async () => {
      const id = await createServerEndpoint();
      const res = await api.as(alice).get(`/endpoint/${id}`);
      expect(Object.keys(res.body)).toEqual([...ENDPOINT_DOCUMENT_KEYS]);
      expect(res.body).toMatchObject({ contact_email: null, expire_time: null, entity_type: 'GCSv4_host', is_globus_connect: false, gcp_connected: null, gcp_paused: null });
      const put = await api.as(alice).put(`/endpoint/${id}`, res.body);
      expect(put.status).toBe(200);
      const after = await api.as(alice).get(`/endpoint/${id}`);
      expect(after.body).toEqual(res.body);
    });

    it('accepts a full document back for personal and shared endpoints too', async () => {
      const personal = await api.as(alice).post('/endpoint', { display_name: 'Laptop', is_vendor_connect: true });
      const host = await createServerEndpoint({ subscription_id: 'DEFAULT' });
      const share = await api.as(alice).post('/shared_endpoint', { display_name: 'Share', host_endpoint: host, host_path: '/' });
      for (const id of [personal.body.id, share.body.id]) {
        const doc = await api.as(alice).get(`/endpoint/${id}`);
        const put = await api.as(alice).put(`/endpoint/${id}`, { ...doc.body, description: 'edited' });
        expect({ id, status: put.status, message: put.body.message }).toEqual({ id, status: 200, message: 'Endpoint updated successfully' });
      }
    });

    it('accepts the explicit nulls SDK 1.x-3.x add on update', async () => {
      const id = await createServerEndpoint();
      const res = await api.as(alice).put(`/endpoint/${id}`, { myproxy_server: 'myproxy.example.org', oauth_server: null });
      expect(res.status).toBe(200);
      expect((await api.as(alice).get(`/endpoint/${id}`)).body.myproxy_server).toBe('myproxy.example.org');
    });

    it('limits keys with fields, percent-encoded commas included', async () => {
      const id = await createServerEndpoint();
      const res = await api.http.get(`${V}/endpoint/${id}?fields=id%2Cdisplay_name,server`).set('Authorization', `Bearer ${alice}`);
      expect(Object.keys(res.body).sort()).toEqual(['DATA', 'DATA_TYPE', 'display_name', 'id']);
      const bad = await api.as(alice).get(`/endpoint/${id}?fields=id,nonsense`);
      expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'BadRequest' });
      expect(bad.body.message).toContain('nonsense');
    });

    it('finds an endpoint by its canonical name, percent-encoded', async () => {
      const id = await createServerEndpoint({ canonical_name: 'alice#lab' });
      const res = await api.as(alice).get('/endpoint/alice%23lab');
      expect(res.body.id).toBe(id);
    });
  });

  describe('errors', () => {
    it('answers a token without the transfer scope with 403 ConsentRequired naming the scope, and a revoked one with 401 at once', async () => {
      const { token: openidOnly } = await api.world.services.admin.tokens.issueToken('alice', null, 'openid');
      const path = '/endpoint/11111111-2222-4333-8444-555555555555';
      const res = await api.as(openidOnly).get(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        code: 'ConsentRequired',
        message: expect.stringContaining('urn:globus:auth:scope:transfer.api.globus.org:all'),
        required_scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'],
        request_id: expect.any(String),
        resource: path,
      });
      expect((await api.as(alice).get(path)).status).toBe(404);
      await api.world.services.admin.tokens.revokeToken(alice);
      const revoked = await api.as(alice).get(path);
      expect(revoked.status).toBe(401);
      expect(revoked.body.code).toBe('ClientError.AuthenticationFailed');
    });

    it('answers unknown ids with 404 EndpointNotFound naming the id', async () => {
      const res = await api.as(alice).get('/endpoint/11111111-2222-4333-8444-555555555555');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        code: 'EndpointNotFound',
        message: "No such endpoint '11111111-2222-4333-8444-555555555555'",
        request_id: expect.any(String),
        resource: '/endpoint/11111111-2222-4333-8444-555555555555',
      });
    });

    it('answers unknown or non-numeric server ids with 404 ServerNotFound', async () => {
      const id = await createServerEndpoint();
      for (const sid of ['99', 'abc']) {
        const res = await api.as(alice).get(`/endpoint/${id}/server/${sid}`);
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'ClientError.NotFound.ServerNotFound' });
      }
    });

    it('answers a duplicate display name with 409 ClientError.Conflict naming it', async () => {
      await createServerEndpoint();
      const res = await api.as(alice).post('/endpoint', { display_name: 'Lab' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('ClientError.Conflict');
      expect(res.body.message).toContain("display_name 'Lab'");
    });

    it.each([
      [{ display_name: 'X', colour: 'red' }, "Unknown field 'colour'"],
      [{ display_name: 7 }, 'Invalid display_name: must be a string'],
      [{ display_name: 'X', public: 'yes' }, 'Invalid public: must be true or false'],
      [{ display_name: 'X', DATA: [{ hostname: 'a.example.org', port: '2811' }] }, 'Invalid DATA[0].port: must be an integer'],
      [{ display_name: 'X', DATA: [{ hostname: 'a.example.org', extra: 1 }] }, "Unknown field 'DATA[0].extra'"],
      [{ display_name: 'X', DATA: 'servers' }, 'DATA'],
      [{ display_name: 'x'.repeat(129) }, 'at most 128'],
      [{ display_name: 'X', host_endpoint: '11111111-2222-4333-8444-555555555555' }, 'POST /shared_endpoint'],
      [[1, 2], 'JSON object'],
    ])('answers the create body %j with 400 BadRequest naming the problem', async (body, message) => {
      const res = await api.as(alice).post('/endpoint', body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'BadRequest' });
      expect(res.body.message).toContain(message);
    });

    it('answers malformed JSON with 400 and an oversized body with 413', async () => {
      const bad = await api.http.post(`${V}/endpoint`).set('Authorization', `Bearer ${alice}`).set('Content-Type', 'application/json').send('{"display_name":');
      expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'BadRequest' });
      const big = await api.as(alice).post('/endpoint', { display_name: 'Big', description: 'x'.repeat(70 * 1024) });
      expect({ status: big.status, code: big.body.code }).toEqual({ status: 413, code: 'ClientError.RequestTooLarge' });
    });

    it('accepts a JSON body sent with curl -d default content type', async () => {
      const res = await api.http
        .post(`${V}/endpoint`)
        .set('Authorization', `Bearer ${alice}`)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('{"display_name":"From curl"}');
      expect(res.status).toBe(201);
    });

    it('answers a malformed percent-encoding in the path with 400, not a 500', async () => {
      const res = await api.as(alice).get('/endpoint/%E0%A4%A');
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'BadRequest' });
      expect(res.body.message).toContain('could not be read');
    });

    it('answers unknown routes with a JSON 404', async () => {
      const res = await api.as(alice).get('/nowhere');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'ClientError.NotFound', resource: '/nowhere' });
    });

    it('lists the subscriptions when DEFAULT is ambiguous', async () => {
      const second = await api.world.services.admin.subscriptions.addSubscription('Second', ['alice']);
      const res = await api.as(alice).post('/endpoint', { display_name: 'M', subscription_id: 'DEFAULT' });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/Please specify the subscription ID to use/);
      expect(res.body.message).toContain(second);
    });

    it('never answers a bad request with a 5xx or a stack trace', async () => {
      const id = await createServerEndpoint({ subscription_id: 'DEFAULT' });
      const values = [null, true, 0, -1, 1.5, '', 'x'.repeat(5000), [], {}, ['a'], { a: 1 }, '\u0000', 'DEFAULT', '../../etc'];
      const fields = ['display_name', 'public', 'subscription_id', 'network_use', 'min_concurrency', 'location', 'https_server', 'owner_string', 'DATA', 'id', 'host_endpoint', 'is_vendor_connect', 'name', 'canonical_name', 'contact_email', 'info_link', 'expires_in'];
      for (const field of fields) {
        for (const value of values) {
          for (const res of [
            await api.as(alice).put(`/endpoint/${id}`, { [field]: value }),
            await api.as(alice).post('/endpoint', { display_name: `fuzz ${Math.random()}`, [field]: value }),
            await api.as(alice).post('/shared_endpoint', { display_name: `fuzz ${Math.random()}`, host_endpoint: id, host_path: '/', [field]: value }),
            await api.as(alice).post(`/endpoint/${id}/server`, { hostname: 'a.example.org', [field.replace('display_name', 'port')]: value }),
          ]) {
            expect({ field, value, status: res.status < 500 ? 'ok' : res.status, body: JSON.stringify(res.body).includes('    at ') }).toEqual({ field, value, status: 'ok', body: false });
          }
        }
      }
    });
  });

  describe('identity of the caller', () => {
    it('hides a private endpoint from another user and shows it once public', async () => {
      const id = await createServerEndpoint();
      expect((await api.as(bob).get(`/endpoint/${id}`)).status).toBe(403);
      await api.as(alice).put(`/endpoint/${id}`, { public: true });
      const res = await api.as(bob).get(`/endpoint/${id}`);
      expect(res.status).toBe(200);
      expect(res.body.my_effective_roles).toEqual([]);
    });
  });
});
