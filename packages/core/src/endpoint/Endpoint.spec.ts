import { newIdentity } from '../auth/Identity';
import { BadRequestError, LimitExceededError } from '../shared/errors';
import { Endpoint, MAX_SERVERS, type CreateEndpoint, type EndpointPatch } from './Endpoint';
import { newServer, type ServerInput } from './Server';

const now = new Date('2026-05-06T07:08:09.000Z');
const owner = newIdentity({ id: '11111111-1111-4111-8111-111111111111', username: 'alice@example.org', now });
let seq = 0;
const nextId = () => `22222222-2222-4222-8222-${String(++seq).padStart(12, '0')}`;

function create(input: CreateEndpoint, subscriptionId: string | null = null): Endpoint {
  return Endpoint.create(input, { id: nextId(), owner, now, subscriptionId, setupKey: nextId() });
}

/** The state with the four network numbers in force, as a reader sees the endpoint. */
function doc(endpoint: Endpoint): Record<string, unknown> {
  return { ...endpoint.snapshot, ...endpoint.networkSettings };
}

function update(endpoint: Endpoint, input: EndpointPatch, subscriptionId?: string | null) {
  endpoint.update(input, { subscriptionId });
}

const SUBSCRIPTION = '33333333-3333-4333-8333-333333333333';

describe('Endpoint field rules (spec 2.1, section 8, compat-notes)', () => {
  it.each([
    ['display_name', 'x'.repeat(129), /at most 128/],
    ['display_name', 'two\nlines', /new lines/],
    ['display_name', 'carriage\rreturn', /new lines/],
    ['organization', 'o'.repeat(1025), /at most 1024/],
    ['organization', 'a\nb', /new lines/],
    ['department', 'd'.repeat(1025), /at most 1024/],
    ['keywords', 'k'.repeat(1025), /at most 1024/],
    ['description', 'd'.repeat(4097), /at most 4096/],
    ['contact_info', 'c'.repeat(4097), /at most 4096/],
    ['contact_email', 'not-an-email', /not an e-mail/],
    ['contact_email', 'a@b.org, c@d.org', /e-mail/],
    ['contact_email', 'bjørn@example.org', /ASCII/],
    ['info_link', 'ftp://example.org/', /http or https/],
    ['info_link', 'example.org', /http or https/],
    ['location', 'somewhere', /Automatic/],
    ['location', '91,0', /latitude/],
    ['location', '0,180.5', /longitude/],
    ['location', '1,2,3', /Automatic/],
    ['https_server', 'http://data.example.org', /https/],
    ['https_server', 'https://data.example.org/path', /without path/],
    ['https_server', 'https://data.example.org?x=1', /without path/],
    ['https_server', 'https://data.example.org/.', /without path/],
    ['https_server', ' https://data.example.org', /without path/],
    ['location', null, /Automatic/],
    ['myproxy_server', 'not a host', /hostname/],
    ['description', 'nul \u0000 byte', /control characters/],
    ['keywords', 'bell\u0007', /control characters/],
  ])('rejects %s = %j on create and on update', (field, value, message) => {
    expect(() => create({ display_name: 'E', [field]: value })).toThrow(message);
    const endpoint = create({ display_name: 'E' });
    expect(() => update(endpoint, { [field]: value })).toThrow(message);
    expect(() => update(endpoint, { [field]: value })).toThrow(BadRequestError);
  });

  it.each([
    ['display_name', 'x'.repeat(128)],
    ['display_name', 'Ünïcødé ✓'],
    ['organization', 'o'.repeat(1024)],
    ['description', 'many\nlines\n' + 'd'.repeat(4000)],
    ['contact_info', 'Room 1\nBuilding 2'],
    ['contact_email', 'ops@data.example.org'],
    ['info_link', 'https://example.org/about?x=1'],
    ['location', '47.6,-122.3'],
    ['location', 'Automatic'],
    ['https_server', 'https://data.example.org:8443'],
    ['https_server', null],
    ['default_directory', '/~/'],
    ['keywords', 'new,key,words'],
  ])('accepts %s = %j', (field, value) => {
    const endpoint = create({ display_name: 'E', [field]: value });
    expect(doc(endpoint)[field]).toEqual(value);
  });

  it('clears a nullable field with an explicit null', () => {
    const endpoint = create({ display_name: 'E', description: 'text', contact_email: 'a@example.org' });
    update(endpoint, { description: null, contact_email: null, oauth_server: null, myproxy_server: null });
    expect(doc(endpoint)).toMatchObject({ description: null, contact_email: null });
  });
});

describe('Endpoint names', () => {
  it('defaults name to the id and canonical_name to <short username>#<name>', () => {
    const endpoint = create({ display_name: 'Lab' });
    expect(doc(endpoint)).toMatchObject({ name: endpoint.id, canonical_name: `alice#${endpoint.id}`, owner_string: 'alice@example.org' });
  });

  it('takes a legacy name instead of a display name', () => {
    expect(doc(create({ name: 'lab-1' }))).toMatchObject({ name: 'lab-1', canonical_name: 'alice#lab-1', display_name: null });
    const unnamed = create({ name: null });
    expect(doc(unnamed)).toMatchObject({ name: unnamed.id, display_name: null });
  });

  it.each([
    [{ name: 'has space' }, /letters, digits/],
    [{ name: 'n'.repeat(129) }, /1 to 128/],
    [{}, /display_name' is required/],
    [{ display_name: null }, /display_name' is required/],
  ])('rejects %j', (input, message) => {
    expect(() => create(input as CreateEndpoint)).toThrow(message);
  });
});

describe('Endpoint kinds on create', () => {
  it('makes a personal-client endpoint with a setup key and one virtual server', () => {
    const endpoint = create({ display_name: 'Laptop', personal: true });
    expect(doc(endpoint)).toMatchObject({ kind: 'personal', vcp_connected: false, vcp_paused: false, network_use: 'normal' });
    expect(endpoint.setupKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(endpoint.listServers()).toEqual([{ id: 1, virtual: true, connected: false, paused: false }]);
    expect(create({ display_name: 'Server', personal: false }).kind).toBe('server');
  });

  it('completes personal setup once: the key is single use', () => {
    const endpoint = create({ display_name: 'Laptop', personal: true });
    const key = endpoint.setupKey!;
    expect(() => endpoint.completePersonalSetup('wrong')).toThrow(/Invalid setup key/);
    endpoint.completePersonalSetup(key);
    expect(doc(endpoint)).toMatchObject({ vendor_connect_setup_key: null, vcp_connected: true });
    expect(() => endpoint.completePersonalSetup(key)).toThrow(/no pending/);
    expect(() => create({ display_name: 'Server' }).completePersonalSetup(key)).toThrow(/no pending/);
  });

  it('refuses servers and server-only fields on a personal-client endpoint', () => {
    expect(() => create({ display_name: 'L', personal: true, servers: [{ hostname: 'a.example.org' }] })).toThrow(
      /'servers' cannot be set when creating a personal-client endpoint/,
    );
    expect(() => create({ display_name: 'L', personal: true, myproxy_server: 'myproxy.example.org' })).toThrow(
      /'myproxy_server' cannot be set when creating a personal-client endpoint/,
    );
    expect(() => create({ display_name: 'L', personal: true, https_server: null })).toThrow(/https_server/);
  });

  it('keeps the virtual server of a personal client as it is: no server may be added, changed or removed', () => {
    const endpoint = create({ display_name: 'L', personal: true });
    expect(() => endpoint.addServer({ hostname: 'a.example.org' })).toThrow(/virtual/);
    expect(() => endpoint.updateServer(1, { hostname: 'a.example.org' })).toThrow(/virtual/);
    expect(() => endpoint.removeServer(1)).toThrow(/virtual/);
    expect(endpoint.server(1)).toMatchObject({ id: 1, virtual: true });
  });

  it('reads an object-store endpoint as an alpha host without servers', () => {
    const endpoint = Endpoint.createObjectStore({ display_name: 'Bucket', s3_url: 'https://s3.example.org/bucket' }, { id: nextId(), owner, now });
    expect(doc(endpoint)).toMatchObject({ kind: 'object_store', s3_url: 'https://s3.example.org/bucket', local_user_info_available: false, servers: [] });
    expect(endpoint.servers).toEqual([]);
    expect(() => endpoint.listServers()).toThrow(/doesn't have servers/);
    expect(() => endpoint.addServer({ hostname: 'a.example.org' })).toThrow(/doesn't have servers/);
  });
});

describe('network_use and the four numbers', () => {
  const custom = { max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 6, preferred_parallelism: 3 };

  it('reads a preset as its values', () => {
    const endpoint = create({ display_name: 'N' });
    expect(doc(endpoint)).toMatchObject({ network_use: 'normal', max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 8, preferred_parallelism: 4 });
    update(endpoint, { subscription_id: SUBSCRIPTION, network_use: 'aggressive' }, SUBSCRIPTION);
    expect(doc(endpoint)).toMatchObject({ network_use: 'aggressive', max_concurrency: 16, preferred_concurrency: 8, max_parallelism: 16, preferred_parallelism: 8 });
  });

  it('changes only on managed endpoints', () => {
    const endpoint = create({ display_name: 'N' });
    expect(() => update(endpoint, { network_use: 'minimal' })).toThrow(/managed endpoint/);
    update(endpoint, { network_use: 'normal' });
    const managed = create({ display_name: 'M', subscription_id: SUBSCRIPTION, network_use: 'minimal' }, SUBSCRIPTION);
    expect(doc(managed).network_use).toBe('minimal');
  });

  it('needs all four numbers with custom, within range and preferred <= max', () => {
    const endpoint = create({ display_name: 'C', subscription_id: SUBSCRIPTION }, SUBSCRIPTION);
    expect(() => update(endpoint, { network_use: 'custom', max_concurrency: 1 })).toThrow(/needs all of/);
    expect(() => update(endpoint, { network_use: 'custom', ...custom, preferred_concurrency: 5 })).toThrow('Invalid preferred_concurrency: must be at most max_concurrency');
    expect(() => update(endpoint, { network_use: 'custom', ...custom, max_concurrency: 129 })).toThrow(/1 to 128/);
    expect(() => update(endpoint, { network_use: 'custom', ...custom, max_parallelism: 65 })).toThrow(/1 to 64/);
    expect(() => update(endpoint, { network_use: 'custom', ...custom, preferred_parallelism: 0 })).toThrow(/1 to 64/);
    expect(() => update(endpoint, { network_use: 'custom', ...custom, max_parallelism: 1.5 })).toThrow(/integer/);
    expect(() => update(endpoint, { network_use: 'custom', ...custom, preferred_parallelism: 7 })).toThrow('Invalid preferred_parallelism: must be at most max_parallelism');
    // preferred equal to max is allowed, for both pairs, at the edges of the ranges
    update(endpoint, { network_use: 'custom', max_concurrency: 128, preferred_concurrency: 128, max_parallelism: 64, preferred_parallelism: 64 });
    expect(doc(endpoint)).toMatchObject({ max_concurrency: 128, preferred_concurrency: 128, max_parallelism: 64, preferred_parallelism: 64 });
    update(endpoint, { network_use: 'custom', max_concurrency: 1, preferred_concurrency: 1, max_parallelism: 1, preferred_parallelism: 1 });
    expect(doc(endpoint)).toMatchObject({ max_concurrency: 1, preferred_concurrency: 1, max_parallelism: 1, preferred_parallelism: 1 });
    update(endpoint, { network_use: 'custom', ...custom });
    expect(doc(endpoint)).toMatchObject({ network_use: 'custom', ...custom });
    update(endpoint, { preferred_parallelism: 5 });
    expect(doc(endpoint).preferred_parallelism).toBe(5);
    expect(() => update(endpoint, { preferred_parallelism: 7 })).toThrow('Invalid preferred_parallelism: must be at most max_parallelism');
  });

  it('refuses the numbers without custom unless they are the preset values', () => {
    const endpoint = create({ display_name: 'P', subscription_id: SUBSCRIPTION }, SUBSCRIPTION);
    expect(() => update(endpoint, { max_concurrency: 3 })).toThrow(/only be set together with network_use 'custom'/);
    update(endpoint, { max_concurrency: 4, preferred_parallelism: 4 });
    expect(() => update(endpoint, { network_use: 'bogus' })).toThrow(/minimal, normal, aggressive, custom/);
  });

  it('falls back to normal when the subscription is cleared (spec section 3)', () => {
    const endpoint = create({ display_name: 'U', subscription_id: SUBSCRIPTION }, SUBSCRIPTION);
    update(endpoint, { network_use: 'custom', ...custom });
    update(endpoint, { subscription_id: null }, null);
    expect(doc(endpoint)).toMatchObject({ subscription_id: null, network_use: 'normal', max_concurrency: 4, preferred_parallelism: 4 });
  });
});

describe('servers (spec 2.2, 4.2 rules 9-11)', () => {
  it('adds with defaults and derives uri', () => {
    const endpoint = create({ display_name: 'S' });
    const id = endpoint.addServer({ hostname: 'gridftp.example.org' });
    // the defaults themselves are Server.spec's
    expect(endpoint.server(id)).toEqual(newServer(id, { hostname: 'gridftp.example.org' }));
  });

  it('holds at most MAX_SERVERS servers, on create and on add, and takes one again after a removal', () => {
    const servers = (n: number) => Array.from({ length: n }, (_, i) => ({ hostname: `s${i}.example.org` }));
    expect(() => create({ display_name: 'S', servers: servers(MAX_SERVERS + 1) })).toThrow(LimitExceededError);
    const full = create({ display_name: 'S', servers: servers(MAX_SERVERS) });
    expect(() => full.addServer({ hostname: 'one-more.example.org' })).toThrow(LimitExceededError);
    full.removeServer(1);
    expect(full.addServer({ hostname: 'one-more.example.org' })).toBe(MAX_SERVERS + 1);
  });

  it('gives each new server a new id, never reusing a deleted one', () => {
    const endpoint = create({ display_name: 'S', servers: [{ hostname: 'a.example.org' }, { hostname: 'b.example.org' }] });
    expect(endpoint.listServers().map((s) => s.id)).toEqual([1, 2]);
    endpoint.removeServer(2);
    expect(endpoint.addServer({ hostname: 'c.example.org' })).toBe(3);
    endpoint.removeServer(1);
    expect(endpoint.listServers().map((s) => s.id)).toEqual([3]);
  });

  it.each([
    [{}, /hostname' is required/],
    [{ hostname: 'bad host' }, /not a hostname/],
    [{ hostname: 'a.example.org', scheme: 'http' }, /gsiftp, ftp/],
    [{ hostname: 'a.example.org', port: 70000 }, /1 to 65535/],
    [{ hostname: null }, /hostname' is required/],
    [{ hostname: 'a.example.org', incoming_data_port_start: 50000 }, /set together/],
    [{ hostname: 'a.example.org', incoming_data_port_start: 1000, incoming_data_port_end: 2000 }, /1024 to 65535/],
    [{ hostname: 'a.example.org', outgoing_data_port_start: 6000, outgoing_data_port_end: 5000 }, /greater than or equal/],
  ])('rejects the server %j', (input: ServerInput, message) => {
    expect(() => create({ display_name: 'S' }).addServer(input)).toThrow(message);
  });

  it('accepts a full port range', () => {
    const endpoint = create({ display_name: 'S' });
    const id = endpoint.addServer({ hostname: 'a.example.org', incoming_data_port_start: 1024, incoming_data_port_end: 65535, outgoing_data_port_start: 50000, outgoing_data_port_end: 50000 });
    expect(endpoint.server(id)).toMatchObject({ incoming_data_port_start: 1024, incoming_data_port_end: 65535 });
  });

  it('updates only hostname, scheme, port and subject; other fields must be unchanged', () => {
    const endpoint = create({ display_name: 'S' });
    const id = endpoint.addServer({ hostname: 'a.example.org', incoming_data_port_start: 2000, incoming_data_port_end: 3000 });
    endpoint.updateServer(id, { hostname: 'b.example.org', port: 2812, scheme: 'ftp', subject: '/CN=b.example.org' });
    const server = endpoint.server(id);
    expect(server).toMatchObject({ hostname: 'b.example.org', port: 2812, scheme: 'ftp', subject: '/CN=b.example.org' });
    const { id: _id, ...unchanged } = server as ServerInput & { id: number };
    endpoint.updateServer(id, unchanged);
    expect(() => endpoint.updateServer(id, { incoming_data_port_start: 2001 })).toThrow(/only hostname, scheme, port and subject/);
    expect(() => endpoint.updateServer(id, { hostname: null })).toThrow(/must not be null/);
    expect(() => endpoint.updateServer(id, { port: null })).toThrow(/must not be null/);
    expect(() => endpoint.updateServer(id, { scheme: null })).toThrow(/must not be null/);
    expect(() => endpoint.updateServer(id, { hostname: 'c.example.org' }, () => { throw new BadRequestError('refused by the caller'); })).toThrow(/refused by the caller/);
    expect(endpoint.server(id)).toMatchObject({ hostname: 'b.example.org' });
    expect(() => endpoint.updateServer(99, { hostname: 'c.example.org' })).toThrow(/No server '99'/);
    expect(() => endpoint.removeServer(99)).toThrow(/No server '99'/);
  });
});

describe('updates per kind', () => {
  it('accepts settings a kind cannot change when sent unchanged, and refuses other values', () => {
    const endpoint = create({ display_name: 'Laptop', personal: true });
    update(endpoint, { myproxy_server: null, https_server: null, network_use: 'normal', max_concurrency: 4 });
    expect(() => update(endpoint, { myproxy_server: 'myproxy.example.org' })).toThrow(/'myproxy_server' cannot be changed on a personal-client endpoint/);
    expect(() => update(endpoint, { https_server: 'https://data.example.org' })).toThrow(/'https_server' cannot be changed/);
  });

  it('changes the owner string only as asked', () => {
    const endpoint = create({ display_name: 'Lab' });
    update(endpoint, { owner_string: 'alice@example.org', description: 'd' });
    update(endpoint, { owner_string: 'carol@example.org' });
    expect(doc(endpoint)).toMatchObject({ owner_string: 'carol@example.org', owner_id: owner.id, description: 'd' });
  });

  it('resets network use to normal only when the subscription goes, not when it changes', () => {
    const endpoint = create({ display_name: 'N', subscription_id: SUBSCRIPTION, network_use: 'aggressive' }, SUBSCRIPTION);
    const other = '44444444-4444-4444-8444-444444444444';
    update(endpoint, { subscription_id: other }, other);
    expect(doc(endpoint)).toMatchObject({ subscription_id: other, network_use: 'aggressive' });
    update(endpoint, { subscription_id: other });
    expect(doc(endpoint).network_use).toBe('aggressive');
  });
});

describe('servers that cannot change, and the first server', () => {
  it('lists the virtual server of a personal-client endpoint but refuses every change to it', () => {
    const laptop = create({ display_name: 'Laptop', personal: true });
    const [virtual] = laptop.listServers();
    expect(laptop.listServers()).toHaveLength(1);
    expect(() => laptop.addServer({ hostname: 'a.example.org' })).toThrow(/virtual and cannot be changed/);
    expect(() => laptop.updateServer(virtual.id, { port: 2812 })).toThrow(/virtual and cannot be changed/);
    expect(() => laptop.removeServer(virtual.id)).toThrow(/virtual and cannot be changed/);
    expect(laptop.listServers()).toEqual([virtual]);
  });

  it('removes server 1 like any other, and never gives its id again', () => {
    const endpoint = create({ display_name: 'Two servers', servers: [{ hostname: 'one.example.org' }, { hostname: 'two.example.org' }] });
    expect(endpoint.listServers().map((s) => s.id)).toEqual([1, 2]);
    endpoint.removeServer(1);
    expect(endpoint.listServers().map((s) => [s.id, 'hostname' in s ? s.hostname : null])).toEqual([[2, 'two.example.org']]);
    expect(endpoint.addServer({ hostname: 'three.example.org' })).toBe(3);
    expect(() => endpoint.removeServer(1)).toThrow(/1/);
  });

  it('needs an absolute host_path for a share', () => {
    const host = create({ display_name: 'Host', subscription_id: SUBSCRIPTION, servers: [{ hostname: 'h.example.org' }] }, SUBSCRIPTION);
    const share = (host_path: string | null) => Endpoint.createShared({ display_name: `Share ${host_path}`, host_endpoint_id: host.id, host_path }, { id: nextId(), owner, now, host, callerIsHostAdministrator: true });
    for (const path of ['projects/a/', '~/a/', '', null]) expect(() => share(path)).toThrow(/host_path' is required: an absolute path/);
    expect(share('/projects/a/').snapshot).toMatchObject({ kind: 'shared', host_path: '/projects/a/' });
  });
});

describe('Endpoint rules mutation testing found unheld', () => {
  const managedHost = () => create({ display_name: 'Managed', subscription_id: SUBSCRIPTION, servers: [{ hostname: 'a.example.org' }] }, SUBSCRIPTION);

  it('is shareable as a managed host or a personal endpoint, functional unless a server endpoint has no servers', () => {
    expect(managedHost().shareable).toBe(true);
    expect(create({ display_name: 'Unmanaged', servers: [{ hostname: 'a.example.org' }] }).shareable).toBe(false);
    expect(create({ display_name: 'Laptop', personal: true }).shareable).toBe(true);
    const host = managedHost();
    const share = Endpoint.createShared({ display_name: 'S', host_endpoint_id: host.id, host_path: '/d/' }, { id: nextId(), owner, now, host, callerIsHostAdministrator: true });
    expect(share.shareable).toBe(false);
    expect(create({ display_name: 'Empty' }).functional).toBe(false);
    expect(create({ display_name: 'Served', servers: [{ hostname: 'a.example.org' }] }).functional).toBe(true);
    expect(create({ display_name: 'Laptop 2', personal: true }).functional).toBe(true);
    expect(share.functional).toBe(true);
  });

  it('starts unverified; is verified only by a subscription administrator, cleared also by its own, lost with a change of subscription', () => {
    const host = managedHost();
    expect(host.snapshot.subscription_admin_verified).toBe(false);
    const none = { subscriptionAdministrator: false, endpointAdministrator: false };
    expect(() => host.setSubscriptionAdminVerified(true, { ...none, endpointAdministrator: true })).toThrow(`Only an administrator of subscription '${SUBSCRIPTION}' may verify endpoint '${host.id}'`);
    host.setSubscriptionAdminVerified(true, { ...none, subscriptionAdministrator: true });
    expect(host.snapshot.subscription_admin_verified).toBe(true);
    expect(() => host.setSubscriptionAdminVerified(false, none)).toThrow(`You need the 'administrator' role on endpoint '${host.id}' or on its subscription to clear its verification`);
    host.setSubscriptionAdminVerified(false, { ...none, endpointAdministrator: true });
    expect(host.snapshot.subscription_admin_verified).toBe(false);
    host.setSubscriptionAdminVerified(false, { ...none, subscriptionAdministrator: true });
    host.setSubscriptionAdminVerified(true, { ...none, subscriptionAdministrator: true });
    update(host, { subscription_id: SUBSCRIPTION }, SUBSCRIPTION);
    expect(host.snapshot.subscription_admin_verified).toBe(true);
    const other = '44444444-4444-4444-8444-444444444444';
    update(host, { subscription_id: other }, other);
    expect(host.snapshot.subscription_admin_verified).toBe(false);
    const unmanaged = create({ display_name: 'Plain' });
    expect(() => unmanaged.setSubscriptionAdminVerified(true, { ...none, subscriptionAdministrator: true })).toThrow(`Endpoint '${unmanaged.id}' has no subscription: there is nothing to verify`);
  });

  it('takes a proxy host of at most 255 characters with its port', () => {
    const host = (length: number) => `${'a'.repeat(length - 5)}:7512`;
    expect(create({ display_name: 'P255', myproxy_server: host(255) }).snapshot.myproxy_server).toBe(host(255));
    expect(() => create({ display_name: 'P256', myproxy_server: host(256) })).toThrow(`Invalid myproxy_server: '${host(256)}' is not a hostname[:port]`);
  });

  it('ignores what a patch leaves undefined, and names the kind a refused change is about', () => {
    const host = managedHost();
    const share = Endpoint.createShared({ display_name: 'S', host_endpoint_id: host.id, host_path: '/d/' }, { id: nextId(), owner, now, host, callerIsHostAdministrator: true });
    share.update({ network_use: undefined, public: undefined, description: 'kept' });
    expect(share.snapshot.description).toBe('kept');
    expect(() => share.update({ location: '1,2' })).toThrow("Field 'location' cannot be changed on a shared endpoint");
  });

  it('refuses a custom number cleared to null while the others stay', () => {
    const host = managedHost();
    update(host, { network_use: 'custom', max_concurrency: 4, preferred_concurrency: 2, max_parallelism: 4, preferred_parallelism: 2 });
    expect(() => update(host, { preferred_parallelism: null })).toThrow('Invalid preferred_parallelism: must be an integer');
    expect(() => update(host, { max_concurrency: null })).toThrow('Invalid max_concurrency: must be an integer');
    expect(doc(host)).toMatchObject({ max_concurrency: 4, preferred_parallelism: 2 });
  });
});
