import { BACKENDS, startApi, type Api } from './harness';

/** GET /endpoint_search (catalogue features 1), on every database's own full-text engine. */
describe.each(BACKENDS)('endpoint search on $name', (backend) => {
  let api: Api;
  let alice: string;
  let bob: string;
  let bobId: string;
  const ids: Record<string, string> = {};
  beforeEach(async () => {
    api = await startApi(backend);
    alice = (await api.world.user('alice')).token;
    ({ token: bob, id: bobId } = await api.world.user('bob'));
    await api.world.subscriptionFor('alice');
    const create = async (key: string, token: string, body: Record<string, unknown>) => {
      const res = await api.as(token).post('/endpoint', body);
      if (res.status !== 201) throw new Error(`${key}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[key] = res.body.id;
    };
    await create('lab', alice, { display_name: 'Lab storage', organization: 'Example University', description: 'Tape-backed archives', public: true, subscription_id: 'DEFAULT', DATA: [{ hostname: 'lab.example.org' }] });
    await create('notes', alice, { display_name: 'Private notes', description: 'archive of lab secrets', DATA: [{ hostname: 'n.example.org' }] });
    await create('climate', alice, { display_name: 'Climate data', keywords: 'ocean,labrador', public: true, DATA: [{ hostname: 'c.example.org' }] });
    await create('empty', alice, { display_name: 'Empty host', public: true });
    await create('laptop', bob, { display_name: "Bob's laptop", is_globus_connect: true });
    ids.share = (await api.as(alice).post('/shared_endpoint', { display_name: 'Project share', host_endpoint: ids.lab, host_path: '/~/project/' })).body.id;
  });
  afterEach(() => api.close());

  const search = (token: string, query: string) => api.as(token).get(`/endpoint_search?${query}`);
  const found = async (token: string, query: string) => {
    const res = await search(token, query);
    expect(res.status).toBe(200);
    return (res.body.DATA as { id: string }[]).map((e) => ids[Object.keys(ids).find((k) => ids[k] === e.id)!] && Object.keys(ids).find((k) => ids[k] === e.id));
  };

  it('matches every term as a word prefix, stemmed, across the searched fields, and only what the caller could GET', async () => {
    expect(await found(bob, 'filter_fulltext=stor')).toEqual(['lab']);
    expect((await found(alice, 'filter_fulltext=archive')).sort()).toEqual(['lab', 'notes']);
    expect(await found(bob, 'filter_fulltext=archive')).toEqual(['lab']);
    expect(await found(bob, 'filter_fulltext=example%20tape')).toEqual(['lab']);
    expect(await found(bob, 'filter_fulltext=tape%20nothing')).toEqual([]);
    expect(await found(bob, 'filter_fulltext=ocean!')).toEqual(['climate']);
  });

  it('ranks a match in display_name above one elsewhere, and gives each item its _rank', async () => {
    const res = await search(alice, 'filter_fulltext=lab');
    const order = await found(alice, 'filter_fulltext=lab');
    expect(order[0]).toBe('lab');
    expect(order).toEqual(expect.arrayContaining(['lab', 'notes', 'climate']));
    const ranks = res.body.DATA.map((e: { _rank: number }) => e._rank);
    expect(ranks).toEqual([...ranks].sort((a: number, b: number) => b - a));
    expect(ranks[0]).toBeGreaterThan(ranks[ranks.length - 1]);
    expect(res.body).toMatchObject({ DATA_TYPE: 'endpoint_list', offset: 0, limit: 25, has_next_page: false });
  });

  it('answers each scope', async () => {
    expect((await found(alice, 'filter_scope=my-endpoints')).sort()).toEqual(['climate', 'empty', 'lab', 'notes', 'share']);
    expect(await found(bob, 'filter_scope=my-gcp-endpoints')).toEqual(['laptop']);
    expect((await found(alice, 'filter_scope=administered-by-me')).sort()).toEqual(['climate', 'empty', 'lab', 'notes', 'share']);
    expect(await found(alice, 'filter_scope=shared-by-me')).toEqual(['share']);
    expect(await found(bob, 'filter_scope=shared-with-me')).toEqual([]);
    await api.as(alice).post(`/endpoint/${ids.share}/access`, { principal_type: 'identity', principal: bobId, path: '/', permissions: 'r' });
    expect(await found(bob, 'filter_scope=shared-with-me')).toEqual(['share']);
    expect(await found(alice, 'filter_scope=shared-with-me')).toEqual([]);
    expect(await found(bob, 'filter_scope=hide-no-permissions')).toEqual(['laptop']);
    for (const scope of ['recently-used', 'in-use']) expect((await search(alice, `filter_scope=${scope}`)).body).toMatchObject({ DATA: [], has_next_page: false });
  });

  it('applies the filters, and refuses the combinations the spec refuses', async () => {
    expect(await found(alice, 'filter_scope=my-endpoints&filter_non_functional=true')).toEqual(['empty']);
    expect(await found(alice, 'filter_fulltext=project&filter_host_endpoint=' + ids.lab)).toEqual(['share']);
    expect(await found(alice, 'filter_fulltext=project&filter_host_endpoint=' + ids.notes)).toEqual([]);
    expect(await found(bob, 'filter_scope=hide-no-permissions&filter_entity_type=GCP_mapped_collection')).toEqual(['laptop']);
    expect(await found(alice, 'filter_scope=my-endpoints&filter_entity_type=GCSv5_endpoint')).toEqual([]);
    expect(await found(bob, `filter_fulltext=lab&filter_owner_id=${bobId}`)).toEqual([]);
    for (const query of ['', 'filter_scope=nope', 'filter_scope=my-endpoints&filter_owner_id=x', 'filter_fulltext=a&limit=0', 'filter_fulltext=a&limit=101', 'filter_fulltext=a&offset=990&limit=20',
      'filter_fulltext=a&filter_entity_type=GCP_mapped_collection&filter_non_functional=false', 'filter_fulltext=a&filter_entity_type=nope', 'filter_fulltext=a&filter_non_functional=maybe', 'filter_fulltext=a&fields=nonsense']) {
      const res = await search(alice, query);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });

  it('stays in step with writes: a renamed endpoint is found by its new name only, a deleted one not at all', async () => {
    await api.as(alice).put(`/endpoint/${ids.climate}`, { display_name: 'Weather archive' });
    expect(await found(alice, 'filter_fulltext=climate')).toEqual([]);
    expect(await found(alice, 'filter_fulltext=weather')).toEqual(['climate']);
    await api.as(alice).delete(`/endpoint/${ids.climate}`);
    expect(await found(alice, 'filter_fulltext=weather')).toEqual([]);
  });

  it('pages through a 300-endpoint search as the SDK paginator does: every match exactly once', async () => {
    const caller = await api.world.principal('alice');
    const made = new Set<string>();
    for (let n = 0; n < 300; n++) made.add((await api.world.services.endpoints.createEndpoint(caller, { display_name: `Survey ${n}`, personal: false, public: n % 2 === 0 })).id);
    const seen: string[] = [];
    let offset = 0;
    for (let pages = 0; pages < 10; pages++) {
      const res = await search(bob, `filter_fulltext=survey&limit=100&offset=${offset}&fields=id`);
      seen.push(...res.body.DATA.map((e: { id: string }) => e.id));
      if (!res.body.has_next_page) break;
      expect(res.body.DATA.length).toBeGreaterThan(0);
      offset += 100;
    }
    expect(seen).toHaveLength(150);
    expect(new Set(seen).size).toBe(150);
    expect(seen.every((id) => made.has(id))).toBe(true);
  });
});
