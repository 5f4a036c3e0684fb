import { newIdentity } from '../auth/Identity';
import { ServerNotFoundError } from '../shared/errors';
import { Endpoint, MAX_SERVERS, type CreateEndpoint, type EndpointPatch } from './Endpoint';
import { newServer, updatedServer } from './Server';

/** Endpoint rules that mutation testing showed no unit test held. */
const now = new Date('2026-05-06T07:08:09.000Z');
const owner = newIdentity({ id: '11111111-1111-4111-8111-111111111111', username: 'alice@example.org', now });
let seq = 0;
const nextId = () => `22222222-2222-4222-8222-${String(++seq).padStart(12, '0')}`;
const SUBSCRIPTION = '33333333-3333-4333-8333-333333333333';
const create = (input: CreateEndpoint, subscriptionId: string | null = null) => Endpoint.create(input, { id: nextId(), owner, now, subscriptionId, setupKey: nextId() });
const managedHost = () => create({ display_name: 'Host', subscription_id: SUBSCRIPTION }, SUBSCRIPTION);
const share = () => Endpoint.createShared({ display_name: 'Share', host_endpoint_id: 'h', host_path: '/data/' }, { id: nextId(), owner, now, host: managedHost(), callerIsHostAdministrator: true });
const updated = (endpoint: Endpoint, patch: EndpointPatch) => {
  endpoint.update(patch);
  return endpoint.snapshot;
};

describe('Endpoint rules', () => {
  it('makes a server endpoint normal, Automatic, unencrypted and verified, with no setup key or client state', () => {
    const lab = create({ display_name: 'Lab' });
    expect(lab.snapshot.canonical_name).toBe(`alice#${lab.id}`);
    expect(lab.snapshot).toMatchObject({
      network_use: 'normal',
      location: 'Automatic',
      force_encryption: false,
      disable_verify: false,
      vendor_connect_setup_key: null,
      vcp_connected: null,
      vcp_paused: null,
    });
    expect(create({ display_name: 'Lab', host_path: undefined } as CreateEndpoint).snapshot.display_name).toBe('Lab');
    expect(() => create({ name: 'bad name' } as CreateEndpoint)).toThrow(/Invalid name/);
  });

  it('takes myproxy_server and oauth_server as host[:port]', () => {
    for (const ok of ['myproxy.example.org:7512', 'a', 'a:1', 'a.b-c.d:65535']) expect(updated(create({ display_name: 'L' }), { myproxy_server: ok }).myproxy_server).toBe(ok);
    for (const bad of ['-a', 'a-', 'a:', 'a:123456', 'a:ab', ':7512', 'a b', `${'a'.repeat(254)}`]) {
      expect(() => updated(create({ display_name: 'L' }), { oauth_server: bad })).toThrow(`Invalid oauth_server: '${bad}' is not a hostname[:port]`);
    }
    expect(updated(create({ display_name: 'L' }), { myproxy_server: `${'a'.repeat(253)}` }).myproxy_server).toHaveLength(253);
  });

  it('takes https_server as https://host[:port] only, without a path, even one that normalizes away', () => {
    for (const ok of ['https://data.example.org:8443', 'https://data.example.org/']) expect(updated(create({ display_name: 'L' }), { https_server: ok }).https_server).toBe(ok);
    for (const bad of ['https://h.example.org/path', 'https://h.example.org/.', 'https://ab.example.org/.', 'https://h.example.org\\path', 'http://h.example.org', 'https://u:p@h.example.org', 'https://h.example.org?x', 'https://h.example.org#x']) {
      expect(() => updated(create({ display_name: 'L' }), { https_server: bad })).toThrow('Invalid https_server: must be an https://host[:port] URL without path, query or fragment');
    }
  });

  it('reads an empty default_directory, myproxy_dn, contact_email or info_link as null, an empty description as empty', () => {
    const endpoint = create({ display_name: 'L', default_directory: '/~/', contact_email: 'a@example.org' });
    expect(updated(endpoint, { default_directory: '', myproxy_dn: '', contact_email: '', info_link: '', description: '' })).toMatchObject({
      default_directory: null,
      myproxy_dn: null,
      contact_email: null,
      info_link: null,
      description: '',
    });
  });

  it('checks a share\'s host_path as one line of at most 4096 characters', () => {
    const make = (host_path: string) => Endpoint.createShared({ display_name: 'S', host_endpoint_id: 'h', host_path }, { id: nextId(), owner, now, host: managedHost(), callerIsHostAdministrator: true });
    expect(() => make('/a\nb/')).toThrow('Invalid host_path: must not contain new lines');
    expect(() => make(`/${'p'.repeat(4096)}`)).toThrow('Invalid host_path: must be at most 4096 characters');
    expect(make(`/${'p'.repeat(4095)}`).snapshot.host_path).toHaveLength(4096);
  });

  it('makes an object-store endpoint with its name, S3 URL and normal network use', () => {
    const store = Endpoint.createObjectStore({ display_name: 'Bucket', s3_url: 'https://s3.example.org' }, { id: 'store-1', owner, now });
    expect(store.snapshot).toMatchObject({ kind: 'object_store', display_name: 'Bucket', canonical_name: 'alice#store-1', s3_url: 'https://s3.example.org', network_use: 'normal', local_user_info_available: false });
    expect(() => Endpoint.createObjectStore({ display_name: 'B', s3_url: 'ftp://x' }, { id: 's', owner, now })).toThrow(/Invalid s3_url/);
  });

  it('names the field and the kind when an update may not change a field', () => {
    expect(() => share().update({ network_use: 'aggressive' })).toThrow("Field 'network_use' cannot be changed on a shared endpoint");
  });

  it('needs the resolved subscription when a patch changes subscription_id', () => {
    expect(() => create({ display_name: 'L' }).update({ subscription_id: SUBSCRIPTION })).toThrow('subscription_id changes need a resolved subscription');
  });

  it("takes back a share's read-only settings unchanged, the network ones included", () => {
    const s = share();
    expect(() => s.update({ network_use: null, max_concurrency: null, preferred_parallelism: null, public: true, description: 'd' })).not.toThrow();
    expect(s.snapshot).toMatchObject({ network_use: null, public: true, description: 'd' });
  });

  it('keeps owner_string unless a patch names one', () => {
    expect(updated(create({ display_name: 'L' }), { description: 'x' }).owner_string).toBe('alice@example.org');
  });

  it('refuses network_use null, and custom numbers that are not integers', () => {
    const host = managedHost();
    expect(() => host.update({ network_use: null })).toThrow('Invalid network_use: must be a string');
    expect(() => host.update({ network_use: 'custom', max_concurrency: 1, preferred_concurrency: 1, max_parallelism: 1 })).toThrow(
      "network_use 'custom' needs all of max_concurrency, preferred_concurrency, max_parallelism, preferred_parallelism in the same request",
    );
    expect(() => host.update({ network_use: 'custom', max_concurrency: null, preferred_concurrency: 1, max_parallelism: 1, preferred_parallelism: 1 })).toThrow('Invalid max_concurrency: must be an integer');
  });

  it('finds each server by its id, and says which one is missing', () => {
    const host = create({ display_name: 'L', servers: [{ hostname: 'a.example.org' }, { hostname: 'b.example.org' }] });
    expect(host.server(2)).toMatchObject({ id: 2, hostname: 'b.example.org' });
    expect(() => host.server(9)).toThrow(ServerNotFoundError);
    expect(() => host.server(9)).toThrow(`No server '9' on endpoint '${host.id}'`);
  });

  it('says how many servers an endpoint may hold', () => {
    const host = create({ display_name: 'L', servers: Array.from({ length: MAX_SERVERS }, (_, i) => ({ hostname: `s${i}.example.org` })) });
    expect(() => host.addServer({ hostname: 'one-more.example.org' })).toThrow(`An endpoint has at most ${MAX_SERVERS} servers`);
  });
});

describe('server updates', () => {
  it('ignores fields a patch leaves undefined, and names the hostname it refuses', () => {
    const server = newServer(1, { hostname: 'a.example.org', incoming_data_port_start: 50000, incoming_data_port_end: 51000 });
    expect(updatedServer(server, { incoming_data_port_start: undefined, hostname: 'b.example.org' })).toMatchObject({ hostname: 'b.example.org', incoming_data_port_start: 50000 });
    expect(() => updatedServer(server, { hostname: '-bad' })).toThrow("Invalid hostname: '-bad' is not a hostname");
  });
});
