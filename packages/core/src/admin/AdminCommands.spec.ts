import { hashToken } from '../auth/AccessToken';
import { BadRequestError, ConflictError, EndpointNotFoundError, ResourceNotFoundError } from '../shared/errors';
import { TestWorld } from '../testing/TestWorld';

/** The operator's commands (the admin CLI's): what each stores, and what each refuses. */
describe('Administration: operator commands', () => {
  let world: TestWorld;
  const admin = () => world.services.admin;
  const repos = () => world.uow.repositories;

  beforeEach(async () => {
    world = new TestWorld();
    await admin().identities.addIdentity({ username: 'alice', name: 'Alice', email: 'alice@example.org', organization: 'Lab' });
    await admin().identities.addIdentity({ username: 'bob' });
  });

  describe('identities and groups', () => {
    it('adds an identity once per username, and lists them', async () => {
      await expect(admin().identities.addIdentity({ username: 'alice' })).rejects.toThrow(ConflictError);
      expect(await repos().identities.findByUsername('alice')).toMatchObject({ name: 'Alice', email: 'alice@example.org', organization: 'Lab' });
      expect((await admin().identities.listIdentities()).map((i) => i.username).sort()).toEqual(['alice', 'bob']);
    });

    it('adds groups with valid, unused names, and their members by username', async () => {
      await expect(admin().identities.addGroup('-starts-with-a-dash')).rejects.toThrow(BadRequestError);
      const lab = await admin().identities.addGroup('Ocean lab');
      await expect(admin().identities.addGroup('Ocean lab')).rejects.toThrow(ConflictError);
      await admin().identities.addGroupMember('Ocean lab', 'alice');
      await admin().identities.addGroupMember('Ocean lab', 'bob');
      await expect(admin().identities.addGroupMember('No lab', 'alice')).rejects.toThrow(ResourceNotFoundError);
      await expect(admin().identities.addGroupMember('Ocean lab', 'nobody')).rejects.toThrow(ResourceNotFoundError);
      expect(await admin().identities.listGroups()).toEqual([{ id: lab, name: 'Ocean lab', members: expect.arrayContaining(['alice', 'bob']) }]);
      await admin().identities.removeGroupMember('Ocean lab', 'bob');
      expect((await admin().identities.listGroups())[0].members).toEqual(['alice']);
      await expect(admin().identities.removeGroupMember('No lab', 'alice')).rejects.toThrow(ResourceNotFoundError);
    });
  });

  describe('tokens', () => {
    it('issues a token for the transfer scope by default, with a lifetime when given', async () => {
      const forever = await admin().tokens.issueToken('alice');
      expect(forever.expires_at).toBeNull();
      const stored = (await repos().accessTokens.findByHash(hashToken(forever.token)))!;
      expect(stored).toMatchObject({ client_id: null, scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'], resource_server: 'transfer.api.globus.org', refresh_token_hash: null, revoked_at: null });
      const hour = await admin().tokens.issueToken('alice', 3600, 'urn:globus:auth:scope:storage.example.org:all');
      expect(hour.expires_at!.getTime() - world.clock.now().getTime()).toBe(3_600_000);
      expect((await repos().accessTokens.findByHash(hashToken(hour.token)))?.resource_server).toBe('storage.example.org');
      await expect(admin().tokens.issueToken('alice', null, 'not$a$scope')).rejects.toThrow(BadRequestError);
      await expect(admin().tokens.issueToken('alice', null, ' ')).rejects.toThrow('A token needs a scope');
      await expect(admin().tokens.issueToken('alice', null, 'openid urn:globus:auth:scope:transfer.api.globus.org:all')).rejects.toThrow(
        new BadRequestError('The scopes of one token must be of one resource server, not auth.globus.org and transfer.api.globus.org'),
      );
      // a root's dependencies, in the hosted grammar, are the resource server's: the token is of the root
      const manager = await admin().tokens.issueToken('alice', null, 'urn:globus:auth:scope:node-1:manage_collections[*https://auth.globus.org/scopes/c1/data_access]');
      expect(await repos().accessTokens.findByHash(hashToken(manager.token))).toMatchObject({ scopes: ['urn:globus:auth:scope:node-1:manage_collections'], resource_server: 'node-1' });
      const signIn = await admin().tokens.issueToken('alice', null, 'openid  email openid');
      expect((await repos().accessTokens.findByHash(hashToken(signIn.token)))).toMatchObject({ scopes: ['openid', 'email'], resource_server: 'auth.globus.org' });
      await expect(admin().tokens.issueToken('nobody')).rejects.toThrow(ResourceNotFoundError);
    });

    it('gives a token at most ten years, and never a value (or hash) another token has', async () => {
      const tenYears = await admin().tokens.issueToken('alice', 315_360_000);
      expect(tenYears.expires_at!.getTime() - world.clock.now().getTime()).toBe(315_360_000_000);
      expect((await admin().tokens.issueToken('alice', 1)).expires_at!.getTime() - world.clock.now().getTime()).toBe(1000);
      for (const lifetime of [0, -5, 1.5, 315_360_001, 1e20]) await expect(admin().tokens.issueToken('alice', lifetime)).rejects.toThrow('Invalid expires_in: a whole number of seconds from 1 to 315360000 (ten years)');
      await admin().tokens.issueToken('alice', null, undefined, 'fixed-token-1');
      await expect(admin().tokens.issueToken('bob', null, undefined, 'fixed-token-1')).rejects.toThrow('Invalid value: a token with this value exists already: give another value');
      await expect(admin().tokens.importToken('bob', { token_hash: hashToken('fixed-token-1'), scopes: ['openid'], expires_at: null })).rejects.toThrow(ConflictError);
      expect((await repos().accessTokens.findByHash(hashToken('fixed-token-1')))?.identity_id).toBe((await repos().identities.findByUsername('alice'))!.id);
    });

    it('takes a value given for a token as it is: 8 to 512 printable characters without spaces', async () => {
      const refusal = new BadRequestError('Invalid token value: 8 to 512 printable ASCII characters without spaces');
      for (const value of ['short-7', 'has space', '\ttabbed-token', 'x'.repeat(513), 'ünïcode-token', 'line\nbreak-token', ' leading-space', 'trailing-space ']) {
        await expect(admin().tokens.issueToken('alice', null, undefined, value)).rejects.toThrow(refusal);
      }
      for (const value of ['exactly8', 'x'.repeat(512), '!~{}[]()<>"\'`|']) {
        expect((await admin().tokens.issueToken('alice', null, undefined, value)).token).toBe(value);
        expect(await repos().accessTokens.findByHash(hashToken(value))).not.toBeNull();
      }
      // without a value: a new random one each time
      const [a, b] = [await admin().tokens.issueToken('alice'), await admin().tokens.issueToken('alice')];
      expect(a.token).not.toBe(b.token);
    });

    it('imports a token by its hash only, as an export wrote it', async () => {
      const hash = hashToken('exported-token');
      await admin().tokens.importToken('bob', { token_hash: hash, scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'], expires_at: null });
      expect(await repos().accessTokens.findByHash(hash)).toMatchObject({ identity_id: (await repos().identities.findByUsername('bob'))!.id, client_id: null });
      const refusal = new BadRequestError('Invalid value_hash: a token hash as xfer export writes it');
      for (const token_hash of [hash.toUpperCase(), hash.slice(1), `${hash}0`, `x${hash.slice(1)}`, `${hash.slice(1)}x`, 'exported-token']) {
        await expect(admin().tokens.importToken('bob', { token_hash, scopes: ['openid'], expires_at: null })).rejects.toThrow(refusal);
      }
    });

    it('lists tokens by id (the start of their hash) and whether they can still be used', async () => {
      const forever = await admin().tokens.issueToken('alice');
      const short = await admin().tokens.issueToken('alice', 60);
      const revoked = await admin().tokens.issueToken('alice');
      await admin().tokens.revokeToken(revoked.token);
      const revokedAt = world.clock.now();
      world.clock.advance(60);
      const listed = await admin().tokens.listTokens('alice');
      const byId = new Map(listed.map((t) => [t.id, t]));
      expect(byId.get(hashToken(forever.token).slice(0, 16))).toMatchObject({ usable: true, expires_at: null, revoked_at: null });
      expect(byId.get(hashToken(short.token).slice(0, 16))).toMatchObject({ usable: false });
      expect(byId.get(hashToken(revoked.token).slice(0, 16))).toMatchObject({ usable: false, revoked_at: revokedAt });
      world.clock.advance(-1);
      expect((await admin().tokens.listTokens('alice')).find((t) => t.id === hashToken(short.token).slice(0, 16))?.usable).toBe(true);
    });

    it('revokes a token by itself or by an unambiguous id of 8 to 64 hex digits', async () => {
      const one = await admin().tokens.issueToken('alice');
      const two = await admin().tokens.issueToken('alice');
      expect(await admin().tokens.revokeToken(one.token)).toBe(hashToken(one.token).slice(0, 16));
      const hash = hashToken(two.token);
      await expect(admin().tokens.revokeToken(hash.slice(0, 7))).rejects.toThrow(ResourceNotFoundError);
      await expect(admin().tokens.revokeToken(`${hash.slice(0, 8)}X`)).rejects.toThrow(ResourceNotFoundError);
      expect(await admin().tokens.revokeToken(hash.slice(0, 8))).toBe(hash.slice(0, 16));
      expect((await repos().accessTokens.findByHash(hash))?.revoked_at).toEqual(world.clock.now());
      await expect(admin().tokens.revokeToken('0'.repeat(16))).rejects.toThrow(/No such token/);
      const alice = (await repos().identities.findByUsername('alice'))!;
      for (const suffix of ['1', '2']) {
        await repos().accessTokens.add({ token_hash: `abcdef0123${suffix}`.padEnd(64, '0'), identity_id: alice.id, created_at: world.clock.now(), expires_at: null, revoked_at: null, client_id: null, scopes: ['s'], resource_server: 'r', refresh_token_hash: null, consent_client_id: null });
      }
      await expect(admin().tokens.revokeToken('abcdef0123')).rejects.toThrow(/ambiguous/);
      await expect(admin().tokens.revokeToken('abcdef01231')).resolves.toBe('abcdef0123100000');
    });
  });

  describe('subscriptions', () => {
    it('adds a subscription once, with identities and groups as members, and more members later by name or id', async () => {
      await admin().identities.addGroup('lab');
      await expect(admin().subscriptions.addSubscription('two\nlines', ['alice'])).rejects.toThrow(BadRequestError);
      await expect(admin().subscriptions.addSubscription('x'.repeat(257), ['alice'])).rejects.toThrow(BadRequestError);
      await expect(admin().subscriptions.addSubscription('Ocean', ['alice', 'nobody'])).rejects.toThrow(/No identity or group named 'nobody'/);
      const id = await admin().subscriptions.addSubscription('Ocean', ['alice', 'lab']);
      await expect(admin().subscriptions.addSubscription('Ocean', [])).rejects.toThrow(ConflictError);
      const [subscription] = await admin().subscriptions.listSubscriptions();
      const alice = (await repos().identities.findByUsername('alice'))!;
      const lab = (await repos().groups.findByName('lab'))!;
      expect(subscription).toMatchObject({ id, name: 'Ocean', member_ids: [alice.id, lab.id], administrator_ids: [] });
      await admin().subscriptions.addSubscription('Reef', ['bob'], ['alice', 'lab']);
      expect((await admin().subscriptions.listSubscriptions()).find((s) => s.name === 'Reef')).toMatchObject({ administrator_ids: [alice.id, lab.id] });
      await admin().subscriptions.addSubscriptionMember('Ocean', 'bob');
      await admin().subscriptions.addSubscriptionMember(id, 'bob');
      await expect(admin().subscriptions.addSubscriptionMember('Desert', 'bob')).rejects.toThrow(ResourceNotFoundError);
      expect((await repos().subscriptions.findById(id))?.member_ids).toHaveLength(3);
    });
  });

  describe('roles and pause rules', () => {
    let endpointId: string;

    beforeEach(async () => {
      const alice = await world.principal('alice');
      endpointId = (await world.services.endpoints.createEndpoint(alice, { display_name: 'Ocean' })).id;
    });

    it('grants a known role to an identity or a group (identities first), on an endpoint that exists', async () => {
      await admin().identities.addGroup('lab');
      await admin().identities.addGroup('bob');
      await expect(admin().endpoints.grantRole(endpointId, 'owner', 'bob')).rejects.toThrow(/Invalid role 'owner': must be one of administrator/);
      await expect(admin().endpoints.grantRole('00000000-0000-4000-8000-0000000000ff', 'administrator', 'bob')).rejects.toThrow(EndpointNotFoundError);
      await expect(admin().endpoints.grantRole(endpointId, 'administrator', 'nobody')).rejects.toThrow(ResourceNotFoundError);
      const toBob = await admin().endpoints.grantRole(endpointId.toUpperCase(), 'activity_monitor', 'bob');
      // the API's rule of kinds: access_manager only on shares (the operator may still grant on endpoints that are not managed)
      await expect(admin().endpoints.grantRole(endpointId, 'access_manager', 'lab')).rejects.toThrow("The role 'access_manager' exists only on shared endpoints");
      const toLab = await admin().endpoints.grantRole(endpointId, 'activity_manager', 'lab');
      const roles = await admin().endpoints.listRoles(endpointId);
      expect(roles.map((r) => [r.role, r.principal_type, r.principal])).toEqual([
        ['administrator', 'identity', 'alice'],
        ['activity_monitor', 'identity', 'bob'],
        ['activity_manager', 'group', 'lab'],
      ]);
      expect(roles.map((r) => r.id)).toEqual([expect.any(String), toBob, toLab]);
      await admin().endpoints.revokeRole(toBob);
      await expect(admin().endpoints.revokeRole(toBob)).rejects.toThrow(ResourceNotFoundError);
      expect((await admin().endpoints.listRoles(endpointId)).map((r) => r.principal)).toEqual(['alice', 'lab']);
      await expect(admin().endpoints.listRoles('00000000-0000-4000-8000-0000000000ff')).rejects.toThrow(EndpointNotFoundError);
    });

    it('names a role holder that is gone by its id', async () => {
      await repos().roles.add({ id: 'r1', endpoint_id: endpointId, role: 'activity_monitor', principal_type: 'group', principal_id: 'gone-group', created_at: world.clock.now() });
      await repos().roles.add({ id: 'r2', endpoint_id: endpointId, role: 'activity_monitor', principal_type: 'identity', principal_id: 'gone-identity', created_at: world.clock.now() });
      expect((await admin().endpoints.listRoles(endpointId)).map((r) => r.principal)).toEqual(['alice', 'gone-group', 'gone-identity']);
    });

    it('adds pause rules for everyone or one identity, signed by the operator unless named, and removes them', async () => {
      await expect(admin().endpoints.addPauseRule(endpointId, { message: 'x'.repeat(4097) })).rejects.toThrow(BadRequestError);
      await expect(admin().endpoints.addPauseRule(endpointId, { message: 'Paused', identity: 'nobody' })).rejects.toThrow(ResourceNotFoundError);
      const all = await admin().endpoints.addPauseRule(endpointId, { message: 'Disk full' });
      const one = await admin().endpoints.addPauseRule(endpointId, { message: 'Too fast', identity: 'bob', by: 'ops@example.org' });
      const bob = (await repos().identities.findByUsername('bob'))!;
      const rules = await admin().endpoints.listPauseRules(endpointId);
      expect(rules.map((r) => [r.id, r.message, r.identity_id, r.modified_by, r.start_time])).toEqual([
        [all, 'Disk full', null, 'xfer-admin', world.clock.now()],
        [one, 'Too fast', bob.id, 'ops@example.org', world.clock.now()],
      ]);
      expect(rules[0]).toMatchObject({ endpoint_id: endpointId, created_by_host_manager: false, pause_ls: true });
      await admin().endpoints.removePauseRule(all);
      await expect(admin().endpoints.removePauseRule(all)).rejects.toThrow(ResourceNotFoundError);
      expect((await admin().endpoints.listPauseRules(endpointId)).map((r) => r.id)).toEqual([one]);
      await expect(admin().endpoints.addPauseRule('00000000-0000-4000-8000-0000000000ff', { message: 'x' })).rejects.toThrow(EndpointNotFoundError);
    });
  });

  describe('passwords, clients, scopes and consents', () => {
    it("keeps a password's hash as an export wrote it, and refuses anything else as one", async () => {
      await admin().identities.setPassword('alice', 'a password of alice');
      const hash = (await world.uow.repositories.identities.findByUsername('alice'))!.password_hash!;
      expect(hash).toMatch(/^scrypt\$/);
      await admin().identities.setPasswordHash('bob', hash);
      expect((await world.uow.repositories.identities.findByUsername('bob'))!.password_hash).toBe(hash);
      await expect(world.services.helperPages.signIn('bob', 'a password of alice')).resolves.toMatchObject({ secret: expect.any(String) });
      const [, n, r, p, salt, key] = hash.split('$');
      const refusedHashes = [
        '',
        'plain text',
        `x${hash}`,
        `${hash}$`,
        `bcrypt$${n}$${r}$${p}$${salt}$${key}`,
        `scrypt$${'1'.repeat(10)}$${r}$${p}$${salt}$${key}`,
        `scrypt$a$${r}$${p}$${salt}$${key}`,
        `scrypt$${n}$1234$${p}$${salt}$${key}`,
        `scrypt$${n}$a$${p}$${salt}$${key}`,
        `scrypt$${n}$${r}$1234$${salt}$${key}`,
        `scrypt$${n}$${r}$a$${salt}$${key}`,
        `scrypt$${n}$${r}$${p}$$${key}`,
        `scrypt$${n}$${r}$${p}$${'a'.repeat(201)}$${key}`,
        `scrypt$${n}$${r}$${p}$sa!t$${key}`,
        `scrypt$${n}$${r}$${p}$${salt}$`,
        `scrypt$${n}$${r}$${p}$${salt}$${'a'.repeat(201)}`,
        `scrypt$${n}$${r}$${p}$${salt}$k*y`,
      ];
      for (const bad of refusedHashes) await expect(admin().identities.setPasswordHash('bob', bad)).rejects.toThrow(new BadRequestError('Invalid password_hash: a hash as xfer export writes it'));
      // the longest parts a hash may have, and the smallest
      await admin().identities.setPasswordHash('bob', `scrypt$${'9'.repeat(9)}$999$999$${'A'.repeat(200)}$${'z+/='.repeat(50)}`);
      await admin().identities.setPasswordHash('bob', 'scrypt$1$1$1$a$b');
      expect((await world.uow.repositories.identities.findByUsername('bob'))!.password_hash).toBe('scrypt$1$1$1$a$b');
      await expect(admin().identities.setPasswordHash('nobody', hash)).rejects.toThrow(ResourceNotFoundError);
    });

    it("refuses a person's identity in the clients' domain", async () => {
      await expect(admin().identities.addIdentity({ username: 'someone@clients.auth.globus.org' })).rejects.toThrow(
        new BadRequestError("Invalid username 'someone@clients.auth.globus.org': the domain clients.auth.globus.org is reserved for clients' own identities"),
      );
      expect(await world.uow.repositories.identities.findByUsername('someone@clients.auth.globus.org')).toBeNull();
    });

    it('sets a password and signs out every session of the identity', async () => {
      await admin().identities.setPassword('alice', 'first password here');
      const { secret } = await world.services.helperPages.signIn('alice', 'first password here');
      expect(await world.services.helperPages.signedIn(secret)).not.toBeNull();
      await admin().identities.setPassword('alice', 'second password here');
      expect(await world.services.helperPages.signedIn(secret)).toBeNull();
      await expect(world.services.helperPages.signIn('alice', 'first password here')).rejects.toThrow();
      await expect(world.services.helperPages.signIn('alice', 'second password here')).resolves.toMatchObject({ secret: expect.any(String), expiresAt: expect.any(Date) });
      await expect(admin().identities.setPassword('nobody', 'a password here')).rejects.toThrow(ResourceNotFoundError);
    });

    it('registers public clients by default, confidential ones with a secret shown once, resource servers only confidential', async () => {
      const app = await admin().clients.addClient({ display_name: 'App', redirect_uris: ['https://app.example.org/cb'] });
      expect(app.secret).toBeNull();
      expect(app.client).toMatchObject({ public_client: true, secret_hash: null, resource_server: null, redirect_uris: ['https://app.example.org/cb'] });
      const backend = await admin().clients.addClient({ display_name: 'Backend', public_client: false, resource_server: 'data.example.org' });
      expect(backend.client.secret_hash).toBe(hashToken(backend.secret!));
      expect(backend.client.resource_server).toBe('data.example.org');
      await expect(admin().clients.addClient({ display_name: 'RS', resource_server: 'data.example.org' })).rejects.toThrow(/confidential/);
      await expect(admin().clients.addClient({ display_name: 'Bad', public_client: false, resource_server: 'not ok!' })).rejects.toThrow(BadRequestError);
      await expect(admin().clients.addClient({ display_name: 'Bad', redirect_uris: ['not a uri'] })).rejects.toThrow(BadRequestError);
      expect((await admin().clients.listClients()).map((c) => c.display_name)).toEqual(['App', 'Backend']);
    });

    it('adds scopes once, with their resource server and the scopes they depend on (each once)', async () => {
      await admin().clients.addScope('urn:xfer:scope:data.example.org:read', 'Read');
      await admin().clients.addScope('openid', 'Who you are', { resourceServer: 'custom.example.org' });
      await expect(admin().clients.addScope('openid', 'Again')).rejects.toThrow(ConflictError);
      await expect(admin().clients.addScope('bad scope', 'x')).rejects.toThrow(BadRequestError);
      await expect(admin().clients.addScope('urn:xfer:scope:x.example.org:y', 'x', { dependsOn: ['missing'] })).rejects.toThrow(/No such scope 'missing'/);
      const read = (await repos().scopes.findByName('urn:xfer:scope:data.example.org:read'))!;
      await admin().clients.addScope('urn:xfer:scope:app.example.org:all', 'All', { dependsOn: [read.name, read.name] });
      const all = (await repos().scopes.findByName('urn:xfer:scope:app.example.org:all'))!;
      expect(all).toMatchObject({ resource_server: 'app.example.org', dependent_scope_ids: [read.id], description: 'All' });
      expect(read.resource_server).toBe('data.example.org');
      expect((await repos().scopes.findByName('openid'))?.resource_server).toBe('custom.example.org');
      expect((await admin().clients.listScopes()).map((s) => s.name).sort()).toEqual(['openid', 'urn:xfer:scope:app.example.org:all', 'urn:xfer:scope:data.example.org:read']);
    });

    it('records consents, dependent ones beneath their parent, and lists them with scope and client names', async () => {
      const { client } = await admin().clients.addClient({ display_name: 'Portal' });
      await admin().clients.addScope('urn:xfer:scope:data.example.org:read', 'Read');
      await admin().clients.addScope('urn:xfer:scope:app.example.org:all', 'All');
      await expect(admin().tokens.grantConsent('alice', 'no-client', 'urn:xfer:scope:app.example.org:all')).rejects.toThrow(/No such client/);
      await expect(admin().tokens.grantConsent('alice', client.id, 'no-scope')).rejects.toThrow(/No such scope/);
      await expect(admin().tokens.grantConsent('nobody', client.id, 'urn:xfer:scope:app.example.org:all')).rejects.toThrow(ResourceNotFoundError);
      const root = await admin().tokens.grantConsent('alice', client.id, 'urn:xfer:scope:app.example.org:all');
      const child = await admin().tokens.grantConsent('alice', client.id, 'urn:xfer:scope:data.example.org:read', root);
      await expect(admin().tokens.grantConsent('alice', client.id, 'urn:xfer:scope:data.example.org:read', 999)).rejects.toThrow(ConflictError);
      const listed = await admin().tokens.listConsents('alice');
      expect(listed.map((c) => [c.id, c.dependency_path, c.scope_name, c.client_name, c.status])).toEqual([
        [root, [root], 'urn:xfer:scope:app.example.org:all', 'Portal', 'approved'],
        [child, [root, child], 'urn:xfer:scope:data.example.org:read', 'Portal', 'approved'],
      ]);
      await admin().tokens.revokeConsent(root);
      expect((await admin().tokens.listConsents('alice')).map((c) => c.status)).toEqual(['revoked', 'revoked']);
      await expect(admin().tokens.revokeConsent(999)).rejects.toThrow(ResourceNotFoundError);
      expect(await admin().tokens.listConsents('bob')).toEqual([]);
    });
  });

  describe('maintenance', () => {
    it('turns maintenance on with a message and a retry time, and off again', async () => {
      expect(await admin().maintenance.current()).toBeNull();
      expect(await admin().maintenance.set(true)).toEqual({ message: 'The service is down for maintenance.', retry_after_seconds: 300, since: world.clock.now() });
      await admin().maintenance.set(true, { message: 'Moving racks', retryAfterSeconds: 60 });
      expect(await admin().maintenance.current()).toEqual({ message: 'Moving racks', retry_after_seconds: 60, since: world.clock.now() });
      await expect(admin().maintenance.set(true, { retryAfterSeconds: 0 })).rejects.toThrow(BadRequestError);
      expect(await admin().maintenance.set(false)).toBeNull();
      expect(await admin().maintenance.current()).toBeNull();
    });
  });

  describe('what each refusal says', () => {
    it('names what exists already, and what is missing', async () => {
      await expect(admin().identities.addIdentity({ username: 'alice' })).rejects.toThrow("Identity 'alice' already exists");
      await admin().identities.addGroup('lab');
      await expect(admin().identities.addGroup('lab')).rejects.toThrow("Group 'lab' already exists");
      await admin().subscriptions.addSubscription('Ocean', []);
      await expect(admin().subscriptions.addSubscription('Ocean', [])).rejects.toThrow("Subscription 'Ocean' already exists");
      await admin().clients.addScope('openid', 'Who you are');
      await expect(admin().clients.addScope('openid', 'x')).rejects.toThrow("Scope 'openid' already exists");
      await expect(admin().endpoints.revokeRole('r-1')).rejects.toThrow("No such role assignment 'r-1'");
      await expect(admin().subscriptions.addSubscriptionMember('Desert', 'bob')).rejects.toThrow("No such subscription 'Desert'");
      await expect(admin().endpoints.removePauseRule('p-1')).rejects.toThrow("No such pause rule 'p-1'");
      await expect(admin().tokens.revokeConsent(42)).rejects.toThrow("No such consent '42'");
      await expect(admin().identities.addGroupMember('nolab', 'bob')).rejects.toThrow("No such group 'nolab'");
      await expect(admin().tokens.issueToken('nobody')).rejects.toThrow("No such identity 'nobody'");
      const { client } = await admin().clients.addClient({ display_name: 'Portal' });
      await expect(admin().tokens.grantConsent('alice', client.id, 'openid', 7)).rejects.toThrow("No consent 7 of 'alice' for this client to depend on");
    });

    it('lists the roles there are when a role is unknown', async () => {
      const alice = await world.principal('alice');
      const endpoint = (await world.services.endpoints.createEndpoint(alice, { display_name: 'E' })).id;
      await expect(admin().endpoints.grantRole(endpoint, 'owner', 'bob')).rejects.toThrow("Invalid role 'owner': must be one of administrator, activity_manager, activity_monitor, access_manager");
    });

    it("signs an operator's pause rule with the operator's id", async () => {
      const alice = await world.principal('alice');
      const endpoint = (await world.services.endpoints.createEndpoint(alice, { display_name: 'E' })).id;
      await admin().endpoints.addPauseRule(endpoint, { message: 'Paused' });
      expect((await admin().endpoints.listPauseRules(endpoint))[0].modified_by_id).toBe('00000000-0000-0000-0000-000000000000');
    });

    it('leaves out of a group listing a member whose identity is gone', async () => {
      const lab = await admin().identities.addGroup('lab');
      await admin().identities.addGroupMember('lab', 'alice');
      await repos().groups.addMember(lab, 'gone-identity');
      expect((await admin().identities.listGroups())[0].members).toEqual(['alice']);
    });
  });
});
