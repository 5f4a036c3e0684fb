import { connect, type AddressInfo } from 'node:net';
import { MAX_SERVERS } from '@xfer/core';
import { BACKENDS, startApi, V, type Api } from './harness';

/** Findings of the security review, each kept fixed on every database. */
describe.each(BACKENDS)('API security on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    bob = (await api.world.user('bob')).token;
  });
  afterEach(() => api.close());

  it("shows a public personal endpoint's setup key to its administrators only, in full documents and with fields", async () => {
    const created = await api.as(alice).post('/endpoint', { display_name: 'Laptop', is_vendor_connect: true, public: true });
    const key = created.body.vendor_connect_setup_key as string;
    expect(key).toEqual(expect.any(String));
    const id = created.body.id as string;
    expect((await api.as(alice).get(`/endpoint/${id}?fields=vendor_connect_setup_key`)).body.vendor_connect_setup_key).toBe(key);
    for (const path of [`/endpoint/${id}`, `/endpoint/${id}?fields=vendor_connect_setup_key`]) {
      const res = await api.as(bob).get(path);
      expect(res.status).toBe(200);
      expect(res.body.vendor_connect_setup_key).toBeNull();
      expect(JSON.stringify(res.body)).not.toContain(key);
    }
  });

  it('answers a deeply nested body and Object-machinery keys with a 400 naming the problem, never a 500', async () => {
    const deep = `${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}`;
    const nested = await api.http.post(`${V}/endpoint`).set('Authorization', `Bearer ${alice}`).set('Content-Type', 'application/json').send(deep);
    expect(nested.status).toBe(400);
    const id = (await api.as(alice).post('/endpoint', { display_name: 'E' })).body.id;
    for (const body of ['{"__proto__":{}}', '{"constructor":{"prototype":{}}}', '{"display_name":"x","prototype":1}']) {
      const res = await api.http.put(`${V}/endpoint/${id}`).set('Authorization', `Bearer ${alice}`).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('BadRequest');
    }
  });

  it(`holds at most ${MAX_SERVERS} servers on an endpoint: 409 LimitExceeded past it`, async () => {
    const servers = Array.from({ length: MAX_SERVERS + 1 }, (_, i) => ({ hostname: `s${i}.example.org` }));
    const tooMany = await api.as(alice).post('/endpoint', { display_name: 'Big', DATA: servers });
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.code).toBe('LimitExceeded');
    const id = (await api.as(alice).post('/endpoint', { display_name: 'Full', DATA: servers.slice(1) })).body.id;
    const one = await api.as(alice).post(`/endpoint/${id}/server`, { hostname: 'one-more.example.org' });
    expect(one.status).toBe(409);
    expect(one.body.code).toBe('LimitExceeded');
  });

  it('says how to authenticate on a 401 (RFC 6750), and never lets a browser sniff a JSON answer', async () => {
    const none = await api.http.get(`${V}/endpoint/x`);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="xfer"');
    const wrong = await api.as('xfer_not_a_token').get('/endpoint/x');
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="xfer", error="invalid_token"');
    for (const res of [none, wrong, await api.as(alice).post('/endpoint', { display_name: 'N' }), await api.http.get('/nowhere')]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('asks every request under the version prefix for a token, whatever the case of its path, the OpenAPI document aside', async () => {
    const id = (await api.as(alice).post('/endpoint', { display_name: 'Cased' })).body.id as string;
    for (const path of [`/v0.10/endpoint/${id}`, `/V0.10/endpoint/${id}`, `/V0.10/ENDPOINT/${id}`, `/v0.10/endpoint/${id}/`, '/v0.10', '/V0.10', '/v0.10/nowhere', '/v0.10?x=1', `/v0.10/endpoint_search?filter_fulltext=Cased`, '/v0.10/task_list']) {
      const res = await api.http.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    for (const method of ['post', 'put', 'delete'] as const) expect((await api.http[method](`/V0.10/endpoint/${id}`).send({})).status).toBe(401);
    // a request target in absolute form names its path after the host: routed, and gated, by that path
    const server = api.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(`GET http://127.0.0.1:${port}/v0.10/endpoint/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString())).on('close', () => resolve(text));
      });
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    } finally {
      server.close();
    }
    expect((await api.http.get('/v0.10/openapi.json')).status).toBe(200);
    expect((await api.http.get('/V0.10/OPENAPI.JSON')).status).toBe(200);
    expect((await api.as(alice).get(`/endpoint/${id}`)).body.display_name).toBe('Cased');
    expect((await api.http.get(`/V0.10/endpoint/${id}`).set('Authorization', `Bearer ${alice}`)).body.display_name).toBe('Cased');
  });
});
