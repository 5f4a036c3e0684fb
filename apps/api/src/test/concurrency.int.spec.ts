import { createServer, type Server } from 'node:http';
import supertest from 'supertest';
import { BACKENDS, startApi, V, type Api } from './harness';

/** Many requests at once against one endpoint: no 5xx, and a result equal to some serial order. */
describe.each(BACKENDS)('concurrent requests on $name', (backend) => {
  let api: Api;
  let server: Server;
  let token: string;
  const send = () => supertest(server);

  beforeEach(async () => {
    api = await startApi(backend);
    server = createServer(api.app).listen(0, '127.0.0.1');
    token = (await api.world.user('alice')).token;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  const as = () => ({ Authorization: `Bearer ${token}` });

  it('gives exactly one of 50 creates with the same display name a 201, the rest ClientError.Conflict', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => send().post(`${V}/endpoint`).set(as()).send({ display_name: 'Contended' })),
    );
    const outcomes = responses.map((r) => `${r.status} ${r.body.code}`);
    expect(outcomes.filter((o) => o === '201 Created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === '409 ClientError.Conflict')).toHaveLength(49);
  });

  it('gives 50 concurrent server adds 50 distinct ids, all stored', async () => {
    const created = await send().post(`${V}/endpoint`).set(as()).send({ display_name: 'Busy', DATA: [{ hostname: 'first.example.org' }] });
    const id = created.body.id;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send().post(`${V}/endpoint/${id}/server`).set(as()).send({ hostname: `s${i}.example.org` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(201));
    const ids = responses.map((r) => r.body.id as number);
    expect(new Set(ids).size).toBe(50);
    const list = await send().get(`${V}/endpoint/${id}/server_list`).set(as());
    expect(list.body.DATA).toHaveLength(51);
    expect(new Set(list.body.DATA.map((s: { id: number }) => s.id)).size).toBe(51);
  });

  it('applies concurrent updates one after another and lets a concurrent delete win cleanly', async () => {
    const created = await send().post(`${V}/endpoint`).set(as()).send({ display_name: 'Raced' });
    const id = created.body.id;
    const updates = Array.from({ length: 20 }, (_, i) =>
      send().put(`${V}/endpoint/${id}`).set(as()).send({ description: `update ${i}`, keywords: `k${i}` }),
    );
    const responses = await Promise.all(updates);
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const after = (await send().get(`${V}/endpoint/${id}`).set(as())).body;
    // one serial order: description and keywords come from the same (last) update
    expect(after.description.replace('update ', '')).toBe(after.keywords.replace('k', ''));

    const mixed = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => send().put(`${V}/endpoint/${id}`).set(as()).send({ description: `late ${i}` })),
      send().delete(`${V}/endpoint/${id}`).set(as()),
      ...Array.from({ length: 10 }, (_, i) => send().post(`${V}/endpoint/${id}/server`).set(as()).send({ hostname: `late${i}.example.org` })),
    ]);
    for (const r of mixed) {
      expect([`${r.status} ${r.body.code}`]).toEqual([expect.stringMatching(/^(200 Updated|200 Deleted|201 Created|409 EndpointDeleted)$/)]);
    }
    const gone = await send().get(`${V}/endpoint/${id}`).set(as());
    expect({ status: gone.status, code: gone.body.code }).toEqual({ status: 409, code: 'EndpointDeleted' });
  });
});
