import { hashToken, type AccessTokenState } from '../../auth/AccessToken';
import { ConsentSet } from '../../auth/Consent';
import type { ScopeState } from '../../auth/Scope';
import { newIdentity, type IdentityState } from '../../auth/Identity';
import { Endpoint, type CreateEndpoint } from '../../endpoint/Endpoint';
import type { ShareCursor } from '../../endpoint/EndpointRepository';
import type { EndpointCriteria } from '../../endpoint/EndpointRepository';
import { MAX_SEARCH_WINDOW } from '../../endpoint/EndpointSearch';
import { ALL_PAUSED } from '../../pause-rule/PauseRule';
import type { EndpointRole } from '../../role/Role';
import { ConcurrentModificationError, ConflictError } from '../../shared/errors';
import type { UnitOfWork } from '../../shared/UnitOfWork';
import { SequentialIdGenerator } from '../fakes';
import { newTask, type TaskState } from '../../task/Task';
import type { TaskQuery } from '../../task/TaskQuery';
import type { StorageAttachment } from '../../storage/Storage';
import { newStorageGateway, updatedStorageGateway } from '../../gcs/StorageGateway';
import type { UserCredentialState } from '../../gcs/UserCredential';

export interface ContractSubject {
  uow: UnitOfWork;
  close(): Promise<void>;
}

/**
 * The behaviour every adapter of the repository ports must show. Run against the in-memory
 * adapters in core and against each database in the persistence package, so fakes cannot drift.
 */
export function describeRepositoryContracts(adapter: string, open: () => Promise<ContractSubject>): void {
  describe(`repository contracts: ${adapter}`, () => {
    let subject: ContractSubject;
    let uow: UnitOfWork;
    let ids: SequentialIdGenerator;
    const now = new Date('2026-03-04T05:06:07.000Z');

    beforeEach(async () => {
      subject = await open();
      uow = subject.uow;
      ids = new SequentialIdGenerator();
    });
    afterEach(async () => subject.close());

    async function identity(username: string): Promise<IdentityState> {
      const i = newIdentity({ id: ids.uuid(), username, name: `Name of ${username}`, email: username.includes('@') ? username : `${username}@example.org`, now });
      await uow.repositories.identities.add(i);
      return i;
    }

    function tokenOf(secret: string, identityId: string, extra: Partial<AccessTokenState> = {}): AccessTokenState {
      return {
        token_hash: hashToken(secret),
        identity_id: identityId,
        created_at: now,
        expires_at: null,
        revoked_at: null,
        client_id: null,
        scopes: ['urn:globus:auth:scope:transfer.api.globus.org:all'],
        resource_server: 'transfer.api.globus.org',
        refresh_token_hash: null,
        consent_client_id: null,
        ...extra,
      };
    }

    function scopeOf(name: string, extra: Partial<ScopeState> = {}): ScopeState {
      return { id: ids.uuid(), name, description: `Use ${name}`, resource_server: 'transfer.api.globus.org', dependent_scope_ids: [], created_at: now, ...extra };
    }

    function serverEndpoint(owner: IdentityState, displayName: string | null, extra: Partial<CreateEndpoint> = {}) {
      return Endpoint.create(
        { personal: false, display_name: displayName, servers: [{ hostname: 'gridftp.example.org' }], ...extra },
        { id: ids.uuid(), owner, now, subscriptionId: null, setupKey: ids.uuid() },
      );
    }

    describe('endpoints', () => {
      it('stores an endpoint and gives back the same state by id and by canonical name', async () => {
        const owner = await identity('alice');
        const endpoint = serverEndpoint(owner, 'Lab storage', { description: 'multi\nline', public: true });
        await uow.repositories.endpoints.insert(endpoint);
        const byId = await uow.repositories.endpoints.findById(endpoint.id);
        expect(byId?.toPrimitives()).toEqual(endpoint.toPrimitives());
        const byName = await uow.repositories.endpoints.findByCanonicalName(endpoint.canonicalName);
        expect(byName?.id).toBe(endpoint.id);
        expect(await uow.repositories.endpoints.findById(ids.uuid())).toBeNull();
      });

      it('rejects a second live endpoint with the same display_name for the same owner, not for another owner', async () => {
        const alice = await identity('alice');
        const bob = await identity('bob');
        await uow.repositories.endpoints.insert(serverEndpoint(alice, 'Same'));
        await expect(uow.repositories.endpoints.insert(serverEndpoint(alice, 'Same'))).rejects.toThrow(ConflictError);
        await expect(uow.repositories.endpoints.insert(serverEndpoint(alice, 'Same'))).rejects.toThrow(/display_name 'Same'/);
        await uow.repositories.endpoints.insert(serverEndpoint(bob, 'Same'));
        await uow.repositories.endpoints.insert(serverEndpoint(alice, null, { name: 'unnamed1' }));
        await uow.repositories.endpoints.insert(serverEndpoint(alice, null, { name: 'unnamed2' }));
      });

      it('rejects a taken canonical_name', async () => {
        const alice = await identity('alice');
        await uow.repositories.endpoints.insert(serverEndpoint(alice, 'One', { name: 'lab' }));
        await expect(
          uow.repositories.endpoints.insert(serverEndpoint(alice, 'Two', { name: 'lab' })),
        ).rejects.toThrow(/canonical_name 'alice#lab'/);
      });

      it('updates with the version it read and refuses a stale copy', async () => {
        const alice = await identity('alice');
        const endpoint = serverEndpoint(alice, 'Versioned');
        await uow.repositories.endpoints.insert(endpoint);
        const first = (await uow.repositories.endpoints.findById(endpoint.id))!;
        const second = (await uow.repositories.endpoints.findById(endpoint.id))!;
        first.addServer({ hostname: 'one.example.org' });
        await uow.repositories.endpoints.update(first);
        second.addServer({ hostname: 'two.example.org' });
        await expect(uow.repositories.endpoints.update(second)).rejects.toThrow(ConcurrentModificationError);
        const stored = (await uow.repositories.endpoints.findById(endpoint.id))!;
        expect(stored.version).toBe(1);
        expect(stored.listServers().map((s) => ('hostname' in s ? s.hostname : null))).toEqual(['gridftp.example.org', 'one.example.org']);
      });

      it('deletes an endpoint and keeps a tombstone findable by id and canonical name', async () => {
        const alice = await identity('alice');
        const endpoint = serverEndpoint(alice, 'Doomed');
        await uow.repositories.endpoints.insert(endpoint);
        await uow.repositories.endpoints.delete(endpoint, endpoint.tombstone(now));
        expect(await uow.repositories.endpoints.findById(endpoint.id)).toBeNull();
        expect(await uow.repositories.endpoints.findTombstone({ id: endpoint.id })).toEqual(endpoint.tombstone(now));
        expect((await uow.repositories.endpoints.findTombstone({ canonical_name: endpoint.canonicalName }))?.id).toBe(endpoint.id);
        expect(await uow.repositories.endpoints.findTombstone({ id: ids.uuid() })).toBeNull();
        // the display name is free again
        await uow.repositories.endpoints.insert(serverEndpoint(alice, 'Doomed'));
      });

      it('lists the shares of a host and finds endpoints by ids in the order asked', async () => {
        const alice = await identity('alice');
        const host = serverEndpoint(alice, 'Host');
        await uow.repositories.endpoints.insert(host);
        const managedHost = Endpoint.fromPrimitives({ ...host.toPrimitives(), subscription_id: ids.uuid() });
        const shares = [1, 2, 3].map((n) =>
          Endpoint.createShared(
            { display_name: `Share ${n}`, host_endpoint_id: host.id, host_path: `/data/${n}/` },
            { id: ids.uuid(), owner: alice, now, host: managedHost, callerIsHostAdministrator: true },
          ),
        );
        for (const share of shares) await uow.repositories.endpoints.insert(share);
        const holder = { identityIds: [alice.id], principalIds: [alice.id], roles: ['administrator'] };
        const listed = await uow.repositories.endpoints.listSharesHeldBy(host.id, holder);
        expect(listed.map((e) => e.endpoint.id)).toEqual(shares.map((s) => s.id));
        expect(await uow.repositories.endpoints.listSharesHeldBy(shares[0].id, holder)).toEqual([]);
        const found = await uow.repositories.endpoints.findByIds([shares[2].id, ids.uuid(), host.id]);
        expect(found.map((e) => e.id)).toEqual([shares[2].id, host.id]);
      });
    });

    describe('reads for the hot paths', () => {
      it('reads an endpoint with the assignments the given principals hold, by id or canonical name', async () => {
        const alice = await identity('alice');
        const endpoint = serverEndpoint(alice, 'With roles');
        await uow.repositories.endpoints.insert(endpoint);
        const [bob, group, stranger] = [ids.uuid(), ids.uuid(), ids.uuid()];
        for (const [role, principal] of [['administrator', bob], ['access_manager', group], ['activity_monitor', stranger]] as const) {
          await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: endpoint.id, role, principal_type: 'identity', principal_id: principal, created_at: now });
        }
        const found = await uow.repositories.endpoints.findWithRolesOf({ id: endpoint.id }, [bob, group]);
        expect(found?.endpoint.toPrimitives()).toEqual(endpoint.toPrimitives());
        expect(found?.assignments.map((a) => a.role).sort()).toEqual(['access_manager', 'administrator']);
        const none = await uow.repositories.endpoints.findWithRolesOf({ canonical_name: endpoint.canonicalName }, [ids.uuid()]);
        expect(none?.assignments).toEqual([]);
        expect(await uow.repositories.endpoints.findWithRolesOf({ id: ids.uuid() }, [bob])).toBeNull();
      });

      it('lists the shares of a host that the holder owns or holds one of the roles on', async () => {
        const alice = await identity('alice');
        const bob = await identity('bob');
        const host = serverEndpoint(alice, 'Host');
        await uow.repositories.endpoints.insert(host);
        const managed = Endpoint.fromPrimitives({ ...host.toPrimitives(), subscription_id: ids.uuid() });
        const share = (owner: IdentityState, n: number) =>
          Endpoint.createShared({ display_name: `S${n}`, host_endpoint_id: host.id, host_path: '/' }, { id: ids.uuid(), owner, now, host: managed, callerIsHostAdministrator: true });
        const [ownedByBob, managedByBob, monitoredByBob, unrelated] = [share(bob, 1), share(alice, 2), share(alice, 3), share(alice, 4)];
        for (const s of [ownedByBob, managedByBob, monitoredByBob, unrelated]) await uow.repositories.endpoints.insert(s);
        await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: managedByBob.id, role: 'access_manager', principal_type: 'identity', principal_id: bob.id, created_at: now });
        await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: managedByBob.id, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.id, created_at: now });
        await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: monitoredByBob.id, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.id, created_at: now });
        const listed = await uow.repositories.endpoints.listSharesHeldBy(host.id, { identityIds: [bob.id], principalIds: [bob.id], roles: ['administrator', 'access_manager'] });
        expect(listed.map((l) => l.endpoint.id)).toEqual([ownedByBob.id, managedByBob.id]);
        expect(listed[1].assignments.map((a) => a.role).sort()).toEqual(['access_manager', 'activity_monitor']);
      });

      it('pages through every share of a host exactly once, in (created_at, id) order, ties included', async () => {
        const alice = await identity('alice');
        const bob = await identity('bob');
        const host = serverEndpoint(alice, 'Paged host');
        await uow.repositories.endpoints.insert(host);
        const managed = Endpoint.fromPrimitives({ ...host.toPrimitives(), subscription_id: ids.uuid() });
        const shares = [0, 1, 2, 3, 4].map((n) =>
          Endpoint.createShared({ display_name: `P${n}`, host_endpoint_id: host.id, host_path: '/' }, { id: ids.uuid(), owner: alice, now: new Date(now.getTime() + (n < 3 ? 0 : 1000)), host: managed, callerIsHostAdministrator: true }),
        );
        for (const share of [...shares].reverse()) await uow.repositories.endpoints.insert(share);
        await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: shares[1].id, role: 'activity_monitor', principal_type: 'identity', principal_id: bob.id, created_at: now });
        const seen: string[] = [];
        let after: ShareCursor | null = null;
        for (let pages = 0; pages < 5; pages++) {
          const page = await uow.repositories.endpoints.listSharesOfHost(host.id, [bob.id], { after, limit: 2 });
          seen.push(...page.map((p) => p.endpoint.id));
          if (page.length < 2) break;
          const last = page[page.length - 1].endpoint;
          after = { createdAt: last.snapshot.created_at, id: last.id };
        }
        const expected = [...shares].sort((a, b) => a.snapshot.created_at.getTime() - b.snapshot.created_at.getTime() || (a.id < b.id ? -1 : 1)).map((e) => e.id);
        expect(seen).toEqual(expected);
        const first = await uow.repositories.endpoints.listSharesOfHost(host.id, [bob.id], { after: null, limit: 10 });
        expect(first.find((p) => p.endpoint.id === shares[1].id)?.assignments.map((r) => r.role)).toEqual(['activity_monitor']);
        expect(first.find((p) => p.endpoint.id === shares[0].id)?.assignments).toEqual([]);
      });

      it('searches by word prefixes with every term required, only among visible endpoints, ranked, in stable pages', async () => {
        const alice = await identity('alice');
        const bob = await identity('bob');
        const make = async (owner: IdentityState, display_name: string, extra: Partial<CreateEndpoint> = {}) => {
          const e = Endpoint.create({ display_name, personal: false, ...extra }, { id: ids.uuid(), owner, now, subscriptionId: null, setupKey: ids.uuid() });
          await uow.repositories.endpoints.insert(e);
          await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: e.id, role: 'administrator', principal_type: 'identity', principal_id: owner.id, created_at: now });
          return e;
        };
        const storage = await make(alice, 'Ocean storage', { public: true });
        const hidden = await make(alice, 'Ocean secrets');
        const other = await make(bob, 'Desert data', { public: true, description: 'ocean of sand' });
        const base = { visibleTo: { principalIds: [bob.id], roles: ['administrator', 'activity_monitor'] as const }, offset: 0, limit: 10 };
        const names = async (criteria: Partial<EndpointCriteria>) =>
          (await uow.repositories.endpoints.search({ ...base, terms: [], ...criteria } as EndpointCriteria)).map((h) => h.endpoint.displayName);
        expect(await names({ terms: ['oce'] })).toEqual(['Ocean storage', 'Desert data']);
        // a word written after a search is found by the same search
        await make(await identity('carol'), 'Ocelot camera', { public: true });
        expect(await names({ terms: ['oce'] })).toEqual(['Ocean storage', 'Ocelot camera', 'Desert data']);
        expect(await names({ terms: ['ocean', 'stor'] })).toEqual(['Ocean storage']);
        expect(await names({ terms: ['ocean', 'nothing'] })).toEqual([]);
        // whoever may see it follows the endpoint's every change: made public, then private again
        hidden.update({ public: true });
        await uow.repositories.endpoints.update(hidden);
        expect(await names({ terms: ['secrets'] })).toEqual(['Ocean secrets']);
        hidden.update({ public: false });
        await uow.repositories.endpoints.update(hidden);
        expect(await names({ terms: ['secrets'] })).toEqual([]);
        expect(await names({ terms: ['ocean'], visibleTo: { principalIds: [alice.id], roles: ['administrator'] } })).toEqual(expect.arrayContaining(['Ocean secrets']));
        expect(await names({ ownedBy: [bob.id] })).toEqual(['Desert data']);
        expect(await names({ ownedBy: [alice.id], offset: 1, limit: 5, visibleTo: { principalIds: [alice.id], roles: ['administrator'] } })).toEqual(['Ocean secrets']);
        const hits = await uow.repositories.endpoints.search({ ...base, terms: ['ocean'] });
        expect(hits[0].rank).toBeGreaterThan(hits[1].rank);
        expect(hits.find((h) => h.endpoint.id === other.id)?.assignments.map((a) => a.role)).toEqual(['administrator']);
        expect([storage.id, hidden.id]).toContain(hits[0].endpoint.id);
      });

      it('ranks by the shared field weights (display_name, then canonical_name and keywords, then organization, then description) alike in every adapter', async () => {
        const alice = await identity('alice');
        const cases: [string, Partial<CreateEndpoint>][] = [
          ['in the description', { display_name: 'Site D', description: 'a kelp forest' }],
          ['in the organization', { display_name: 'Site C', organization: 'Kelp institute' }],
          ['in the keywords', { display_name: 'Site B', keywords: 'kelp,algae' }],
          ['in the display name', { display_name: 'Kelp station' }],
          ['in the display name and the description', { display_name: 'Kelp survey', description: 'kelp counts by year' }],
        ];
        const made = new Map<string, string>();
        for (const [label, fields] of cases) {
          const e = Endpoint.create({ display_name: null, personal: false, public: true, ...fields } as CreateEndpoint, { id: ids.uuid(), owner: alice, now, subscriptionId: null, setupKey: ids.uuid() });
          await uow.repositories.endpoints.insert(e);
          made.set(e.id, label);
        }
        const hits = await uow.repositories.endpoints.search({ terms: ['kelp'], visibleTo: { principalIds: [alice.id], roles: ['administrator'] }, offset: 0, limit: 10 } as EndpointCriteria);
        expect(hits.map((h) => made.get(h.endpoint.id))).toEqual(['in the display name and the description', 'in the display name', 'in the keywords', 'in the organization', 'in the description']);
        const ranks = hits.map((h) => h.rank);
        expect(new Set(ranks).size).toBe(ranks.length);
      });

      it('ranks display_name matches first however many endpoints match (more than the search window too)', async () => {
        const alice = await identity('alice');
        // more than any adapter ranks by reading the matches' text (SQLite: 2,000; bm25 beyond)
        for (let i = 0; i < 2 * MAX_SEARCH_WINDOW + 5; i++) {
          const named = i % 200 === 7;
          const e = Endpoint.create(
            { display_name: named ? `Ocean ${i}` : `Site ${i}`, description: named ? null : `near the ocean ${i}`, personal: false, public: true },
            { id: ids.uuid(), owner: alice, now, subscriptionId: null, setupKey: ids.uuid() },
          );
          await uow.repositories.endpoints.insert(e);
        }
        const visibleTo = { principalIds: [alice.id], roles: ['administrator'] as const };
        const search = (terms: string[], offset: number, limit: number) => uow.repositories.endpoints.search({ terms, visibleTo, offset, limit } as EndpointCriteria);
        for (const terms of [['ocean'], ['ocean', '7']]) {
          const first = await search(terms, 0, 10);
          const named = first.filter((h) => (h.endpoint.displayName ?? '').startsWith('Ocean'));
          expect(named.length).toBeGreaterThan(0);
          expect(first.slice(0, named.length)).toEqual(named);
          const ranks = first.map((h) => h.rank);
          expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
          const second = await search(terms, 10, 10);
          expect(second.some((h) => first.some((f) => f.endpoint.id === h.endpoint.id))).toBe(false);
        }

        // a few of those matches in a scope: the owner's, or those a holder holds a role on
        const bob = await identity('bob');
        const make = async (owner: IdentityState, display_name: string, extra: Partial<CreateEndpoint> = {}) => {
          const e = Endpoint.create({ display_name, personal: false, ...extra }, { id: ids.uuid(), owner, now, subscriptionId: null, setupKey: ids.uuid() });
          await uow.repositories.endpoints.insert(e);
          return e;
        };
        const role = (endpoint: Endpoint, role: EndpointRole) => uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: endpoint.id, role, principal_type: 'identity', principal_id: bob.id, created_at: now });
        const bobs = [await make(bob, 'Ocean buoy', { public: true }), await make(bob, 'Buoy archive', { description: 'ocean floor' })];
        await role(bobs[1], 'administrator');
        const monitored = await make(alice, 'Ocean gliders');
        await role(monitored, 'activity_monitor');
        // a role that does not make an endpoint visible: in the scope, not found
        const managed = await make(alice, 'Ocean vault');
        await role(managed, 'access_manager');
        await make(bob, 'Dune station', { public: true });
        await make(bob, 'Tide gauge 17', { public: true });
        const asBob = { visibleTo: { principalIds: [bob.id], roles: ['administrator', 'activity_monitor'] as const }, limit: 10 };
        const scoped = async (criteria: Partial<EndpointCriteria>) =>
          (await uow.repositories.endpoints.search({ ...asBob, offset: 0, ...criteria } as EndpointCriteria)).map((h) => h.endpoint.displayName);
        expect(await scoped({ terms: ['ocean'], ownedBy: [bob.id] })).toEqual(['Ocean buoy', 'Buoy archive']);
        expect(await scoped({ terms: ['ocean'], ownedBy: [bob.id], offset: 1 })).toEqual(['Buoy archive']);
        const holding = { principalIds: [bob.id], roles: ['administrator', 'activity_monitor', 'access_manager'] as const };
        expect((await scoped({ terms: ['ocean'], holding })).sort()).toEqual(['Buoy archive', 'Ocean gliders']);
        expect(await scoped({ terms: ['ocean', 'glid'], holding })).toEqual(['Ocean gliders']);
        // "1" begins hundreds of words (alice's numbers): a prefix, in bob's scope
        expect(await scoped({ terms: ['1'], ownedBy: [bob.id] })).toEqual(['Tide gauge 17']);
      }, 60_000);

      it('finds a word by every prefix of it, after updates and deletes, however many words share the prefix', async () => {
        const alice = await identity('alice');
        const visibleTo = { principalIds: [alice.id], roles: ['administrator'] as const };
        const make = async (display_name: string, keywords: string | null = null) => {
          const e = Endpoint.create({ display_name, keywords, personal: false, public: true }, { id: ids.uuid(), owner: alice, now, subscriptionId: null, setupKey: ids.uuid() });
          await uow.repositories.endpoints.insert(e);
          return e;
        };
        const names = async (...terms: string[]) =>
          (await uow.repositories.endpoints.search({ terms, visibleTo, offset: 0, limit: 100 } as EndpointCriteria)).map((h) => h.endpoint.displayName).sort();
        await make('Agreed terms');
        await make('Generalization studies');
        const renamed = await make('Plain');
        const gone = await make('Quokka colony');
        for (let i = 0; i < 70; i++) await make(`Lot ${i}`, `tag${i}`);

        // stems the engine does not stem again the same way ("agreed" is indexed as "agre")
        for (const term of ['agr', 'agree', 'agreed']) expect(await names(term)).toEqual(['Agreed terms']);
        expect(await names('general', 'stud')).toEqual(['Generalization studies']);
        renamed.update({ display_name: 'Zebrafish atlas' });
        await uow.repositories.endpoints.update(renamed);
        expect(await names('zebra')).toEqual(['Zebrafish atlas']);
        expect(await names('plain')).toEqual([]);
        await uow.repositories.endpoints.delete(gone, gone.tombstone(now));
        expect(await names('quok')).toEqual([]);
        // more words begin with "tag" than a term is expanded into; eleven with "tag1"
        expect(await names('tag')).toHaveLength(70);
        expect(await names('tag1')).toEqual(['Lot 1', ...Array.from({ length: 10 }, (_, i) => `Lot 1${i}`)].sort());
        expect(await names('tag1', 'lot')).toHaveLength(11);
        expect(await names('tag69', 'agree')).toEqual([]);
        // such a prefix among endpoints that are not public: only those alice holds a role on that lets her see them
        const bob = await identity('bob');
        const bobs = async (display_name: string, role?: EndpointRole) => {
          const e = Endpoint.create({ display_name, keywords: 'tag99', personal: false }, { id: ids.uuid(), owner: bob, now, subscriptionId: null, setupKey: ids.uuid() });
          await uow.repositories.endpoints.insert(e);
          if (role) await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: e.id, role, principal_type: 'identity', principal_id: alice.id, created_at: now });
        };
        await bobs('Private vault');
        await bobs('Administered vault', 'administrator');
        await bobs('Managed vault', 'access_manager');
        expect(await names('tag')).toHaveLength(71);
        expect(await names('tag', 'vault')).toEqual(['Administered vault']);
      }, 60_000);

      it('reads a token with its identity, the identity set and their groups', async () => {
        const alice = await identity('alice');
        const work = await identity('alice@work.example.org');
        await uow.repositories.identities.update([{ ...work, set_id: alice.set_id, linked_at: now }]);
        const groupId = ids.uuid();
        await uow.repositories.groups.add({ id: groupId, name: 'lab', created_at: now });
        await uow.repositories.groups.addMember(groupId, work.id);
        const token = tokenOf('work-token', work.id, { client_id: ids.uuid(), scopes: ['a', 'b'] });
        await uow.repositories.accessTokens.add(token);
        const holder = await uow.repositories.accessTokens.findHolder(token.token_hash);
        expect(holder?.token).toEqual(token);
        expect(holder?.identity.id).toBe(work.id);
        expect(holder?.set.map((i) => i.username)).toEqual(['alice', 'alice@work.example.org']);
        expect(holder?.groupIds).toEqual([groupId]);
        expect(await uow.repositories.accessTokens.findHolder(hashToken('nope'))).toBeNull();
      });
    });

    describe('roles and pause rules', () => {
      it('lists assignments per endpoint, refuses duplicates and deletes them with their endpoint', async () => {
        const [e1, e2, someone, group] = [ids.uuid(), ids.uuid(), ids.uuid(), ids.uuid()];
        const add = (endpoint_id: string, role: 'administrator' | 'access_manager', principal_id: string, principal_type: 'identity' | 'group' = 'identity') =>
          uow.repositories.roles.add({ id: ids.uuid(), endpoint_id, role, principal_type, principal_id, created_at: now });
        await add(e1, 'administrator', someone);
        await add(e1, 'access_manager', group, 'group');
        await add(e2, 'administrator', someone);
        await expect(add(e1, 'administrator', someone)).rejects.toThrow(ConflictError);
        expect((await uow.repositories.roles.listForEndpoint(e1)).map((a) => a.role).sort()).toEqual(['access_manager', 'administrator']);
        await uow.repositories.roles.deleteForEndpoint(e1);
        expect(await uow.repositories.roles.listForEndpoint(e1)).toEqual([]);
        expect((await uow.repositories.roles.listForEndpoint(e2)).length).toBe(1);
      });

      it('stores pause rules per endpoint', async () => {
        const endpointId = ids.uuid();
        const rule = {
          id: ids.uuid(),
          endpoint_id: endpointId,
          message: 'maintenance',
          start_time: now,
          identity_id: null,
          ...ALL_PAUSED,
          pause_ls: false,
          modified_by: 'admin',
          modified_by_id: ids.uuid(),
          created_by_host_manager: false,
        };
        await uow.repositories.pauseRules.add(rule);
        expect(await uow.repositories.pauseRules.listForEndpoint(endpointId)).toEqual([rule]);
        await uow.repositories.pauseRules.deleteForEndpoint(endpointId);
        expect(await uow.repositories.pauseRules.listForEndpoint(endpointId)).toEqual([]);
      });
    });

    describe('tasks', () => {
      const taskOf = (owner: string, at: Date, extra: Partial<TaskState> = {}): TaskState => ({
        ...newTask(
          ids.uuid(),
          owner,
          {
            type: 'TRANSFER',
            submission_id: ids.uuid(),
            label: 'Copy',
            deadline: new Date('2026-03-05T00:00:00.000Z'),
            source_endpoint: ids.uuid(),
            destination_endpoint: ids.uuid(),
            items: [{ source_path: '/a', destination_path: '/b', recursive: null, external_checksum: null, checksum_algorithm: null }],
            options: { sync_level: 2, verify_checksum: true, preserve_timestamp: false, encrypt_data: false, skip_source_errors: false, fail_on_quota_errors: false, delete_destination_extra: false, filter_rules: [{ method: 'exclude', name: '*.tmp', type: null }] },
          },
          at,
          { source: 'Lab DTN', destination: null },
        ),
        ...extra,
      });

      it('keeps a task whole: its request, counters and times, as written back', async () => {
        const owner = ids.uuid();
        const task = taskOf(owner, now);
        await uow.repositories.tasks.add(task);
        expect(await uow.repositories.tasks.findById(task.id)).toEqual(task);
        const relabeled: TaskState = { ...task, request: { ...task.request, label: 'Copy again' }, deadline: new Date('2026-03-06T00:00:00.000Z') };
        expect(await uow.repositories.tasks.saveLabelAndDeadline({ ...relabeled, status: 'SUCCEEDED', niceStatus: 'ignored' })).toBe(true);
        expect(await uow.repositories.tasks.findById(task.id)).toEqual(relabeled);
        expect((await uow.repositories.tasks.listForOwners([owner], { limit: 10, offset: 0 })).tasks.map((t) => t.request.label)).toEqual(['Copy again']);
        const ended: TaskState = { ...relabeled, status: 'FAILED', niceStatus: null, fatalError: { code: 'CANCELED', description: 'canceled' }, completionTime: now, isPaused: true, canceledByAdmin: 'BOTH', canceledByAdminMessage: 'maintenance', counters: { ...task.counters, bytesTransferred: 5_000_000_000 } };
        // progress leaves the request and deadline as stored
        expect(await uow.repositories.tasks.saveProgress({ ...ended, request: task.request, deadline: task.deadline })).toBe(true);
        expect(await uow.repositories.tasks.findById(task.id)).toEqual(ended);
        // once ended, neither writes: a cancel and a finish cannot overwrite each other
        expect(await uow.repositories.tasks.saveProgress({ ...ended, status: 'SUCCEEDED', fatalError: null })).toBe(false);
        expect(await uow.repositories.tasks.saveProgress({ ...ended, status: 'ACTIVE' })).toBe(false);
        expect(await uow.repositories.tasks.saveLabelAndDeadline({ ...ended, request: { ...ended.request, label: 'Too late' } })).toBe(false);
        expect(await uow.repositories.tasks.saveProgress({ ...ended, id: ids.uuid() })).toBe(false);
        expect(await uow.repositories.tasks.findById(task.id)).toEqual(ended);
        expect(await uow.repositories.tasks.findBySubmission([ids.uuid(), owner], task.request.submission_id)).toEqual(ended);
        expect(await uow.repositories.tasks.findBySubmission([ids.uuid()], task.request.submission_id)).toBeNull();
        expect(await uow.repositories.tasks.findBySubmission([], task.request.submission_id)).toBeNull();
        expect(await uow.repositories.tasks.findById(ids.uuid())).toBeNull();
      });

      it("lists an owner's tasks newest first, by status and type, a page at a time with the total", async () => {
        const [owner, linked, other] = [ids.uuid(), ids.uuid(), ids.uuid()];
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const first = taskOf(owner, at(1));
        const second = taskOf(linked, at(2), { status: 'SUCCEEDED' });
        const third = taskOf(owner, at(3));
        const deletion: TaskState = { ...taskOf(owner, at(4)), request: { type: 'DELETE', submission_id: ids.uuid(), label: null, deadline: null, endpoint: ids.uuid(), paths: ['/x'], options: { recursive: true, ignore_missing: false, interpret_globs: false } } };
        for (const task of [first, second, third, deletion, taskOf(other, at(5))]) await uow.repositories.tasks.add(task);
        const list = (query: Partial<TaskQuery> = {}) => uow.repositories.tasks.listForOwners([owner, linked], { limit: 10, offset: 0, ...query });
        expect((await list()).tasks.map((t) => t.id)).toEqual([deletion.id, third.id, second.id, first.id]);
        expect((await list()).total).toBe(4);
        expect(await list({ limit: 2, offset: 1 })).toEqual({ tasks: [third, second], total: 4 });
        expect((await list({ status: ['SUCCEEDED'] })).tasks).toEqual([second]);
        expect((await list({ type: ['DELETE'] })).tasks).toEqual([deletion]);
        expect((await list({ status: ['ACTIVE'], type: ['TRANSFER'] })).total).toBe(2);
        expect(await uow.repositories.tasks.listForOwners([], { limit: 10, offset: 0 })).toEqual({ tasks: [], total: 0 });
        expect((await uow.repositories.tasks.listActive(10)).map((t) => t.id)).toEqual([first.id, third.id, deletion.id, expect.any(String)]);
        expect(await uow.repositories.tasks.listActive(1)).toEqual([first]);
        // in use: the endpoints of the owners' ACTIVE tasks, each once
        const ends = (task: TaskState) => (task.request.type === 'TRANSFER' ? [task.request.source_endpoint, task.request.destination_endpoint] : [task.request.endpoint]);
        expect((await uow.repositories.tasks.activeEndpointIds([owner, linked])).sort()).toEqual([...new Set([...ends(first), ...ends(third), ...ends(deletion)])].sort());
        expect(await uow.repositories.tasks.activeEndpointIds([linked])).toEqual([]);
        expect(await uow.repositories.tasks.activeEndpointIds([])).toEqual([]);
        // the endpoint manager's view: by source or destination, whoever the owner
        const bySource = await uow.repositories.tasks.listForEndpoints([first.request.type === 'TRANSFER' ? first.request.source_endpoint : ''], { limit: 10, offset: 0 });
        expect(bySource).toEqual({ tasks: [first], total: 1 });
        const destinationOfSecond = second.request.type === 'TRANSFER' ? second.request.destination_endpoint : '';
        const deleted = deletion.request.type === 'DELETE' ? deletion.request.endpoint : '';
        expect((await uow.repositories.tasks.listForEndpoints([destinationOfSecond, deleted], { limit: 10, offset: 0 })).tasks.map((t) => t.id)).toEqual([deletion.id, second.id]);
        expect((await uow.repositories.tasks.listForEndpoints([destinationOfSecond, deleted], { limit: 1, offset: 1, status: ['SUCCEEDED', 'ACTIVE'] })).total).toBe(2);
        expect((await uow.repositories.tasks.listForEndpoints([destinationOfSecond, deleted], { limit: 10, offset: 0, type: ['DELETE'] })).tasks).toEqual([deletion]);
        expect(await uow.repositories.tasks.listForEndpoints([], { limit: 10, offset: 0 })).toEqual({ tasks: [], total: 0 });
      });

      it('filters a task list by id, label (exact, not, pattern, not pattern), request and completion times, and orders it by any field', async () => {
        const owner = ids.uuid();
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const labeled = (label: string | null, seconds: number, extra: Partial<TaskState> = {}): TaskState => {
          const task = taskOf(owner, at(seconds), extra);
          return { ...task, request: { ...task.request, label } };
        };
        const copyData = labeled('copy data', 1, { status: 'SUCCEEDED', completionTime: at(10) });
        const copyMore = labeled('Copy MORE_50%', 2, { status: 'FAILED', completionTime: at(5) });
        const backup = labeled('backup', 3);
        const none = labeled(null, 4);
        for (const task of [copyData, copyMore, backup, none]) await uow.repositories.tasks.add(task);
        const listed = async (query: Partial<TaskQuery>) => (await uow.repositories.tasks.listForOwners([owner], { limit: 10, offset: 0, ...query })).tasks.map((t) => t.id);
        const label = (filter: Partial<{ is: string[]; isNot: string[]; like: string[]; notLike: string[] }>) => ({ label: { is: [], isNot: [], like: [], notLike: [], ...filter } });
        expect(await listed(label({ is: ['copy data'] }))).toEqual([copyData.id]);
        expect(await listed(label({ is: ['Copy data'] }))).toEqual([]);
        expect(await listed(label({ like: ['COPY*'] }))).toEqual([copyMore.id, copyData.id]);
        // % and _ are themselves in a pattern, * alone is any run
        expect(await listed(label({ like: ['*50%'] }))).toEqual([copyMore.id]);
        expect(await listed(label({ like: ['copy_data'] }))).toEqual([]);
        expect(await listed(label({ like: ['*a*a*'] }))).toEqual([copyData.id]);
        // a task without a label is kept by the negative forms only
        expect(await listed(label({ isNot: ['backup'] }))).toEqual([none.id, copyMore.id, copyData.id]);
        expect(await listed(label({ notLike: ['copy*'] }))).toEqual([none.id, backup.id]);
        expect(await listed(label({ like: ['copy*'], notLike: ['*more*'] }))).toEqual([copyData.id]);
        expect(await listed(label({ is: ['backup'], like: ['*data'] }))).toEqual([backup.id, copyData.id]);
        expect(await listed({ ids: [backup.id, none.id, ids.uuid()] })).toEqual([none.id, backup.id]);
        expect(await listed({ requested: { from: at(2), to: at(3) } })).toEqual([backup.id, copyMore.id]);
        expect(await listed({ requested: { from: null, to: at(1) } })).toEqual([copyData.id]);
        expect(await listed({ completed: { from: at(6), to: null } })).toEqual([copyData.id]);
        expect(await listed({ completed: { from: null, to: null } })).toEqual([copyMore.id, copyData.id]);
        // orders: a missing value first, then newest request first, whatever the database's collation
        expect(await listed({ order: [{ field: 'requestTime', descending: false }] })).toEqual([copyData.id, copyMore.id, backup.id, none.id]);
        expect(await listed({ order: [{ field: 'label', descending: false }] })).toEqual([none.id, copyMore.id, backup.id, copyData.id]);
        expect(await listed({ order: [{ field: 'completionTime', descending: true }] })).toEqual([copyData.id, copyMore.id, none.id, backup.id]);
        expect(await listed({ order: [{ field: 'status', descending: false }, { field: 'label', descending: true }] })).toEqual([backup.id, none.id, copyMore.id, copyData.id]);
        expect(await listed({ order: [{ field: 'label', descending: false }], limit: 2, offset: 1 })).toEqual([copyMore.id, backup.id]);
        expect((await uow.repositories.tasks.listForOwners([owner], { limit: 1, offset: 0, ...label({ like: ['copy*'] }) })).total).toBe(2);
        const endpoint = copyData.request.type === 'TRANSFER' ? copyData.request.source_endpoint : '';
        expect((await uow.repositories.tasks.listForEndpoints([endpoint], { limit: 10, offset: 0, ...label({ notLike: ['copy*'] }) })).total).toBe(0);
        expect((await uow.repositories.tasks.listForEndpoints([endpoint], { limit: 10, offset: 0, ...label({ like: ['copy*'] }) })).total).toBe(1);
      });

      it("lists active tasks oldest first, at most so many of each owner's of a type, so that one owner's many never hide another's", async () => {
        const [busy, other] = [ids.uuid(), ids.uuid()];
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const many = await Promise.all([1, 2, 3, 4, 5].map(async (n) => {
          const task = taskOf(busy, at(n));
          await uow.repositories.tasks.add(task);
          return task;
        }));
        const deletion: TaskState = { ...taskOf(busy, at(6)), request: { type: 'DELETE', submission_id: ids.uuid(), label: null, deadline: null, endpoint: ids.uuid(), paths: ['/x'], options: { recursive: true, ignore_missing: false, interpret_globs: false } } };
        const late = taskOf(other, at(7));
        for (const task of [deletion, late, taskOf(other, at(8), { status: 'SUCCEEDED' })]) await uow.repositories.tasks.add(task);
        expect((await uow.repositories.tasks.listActive(10, 2)).map((t) => t.id)).toEqual([many[0]!.id, many[1]!.id, deletion.id, late.id]);
        expect((await uow.repositories.tasks.listActive(3, 2)).map((t) => t.id)).toEqual([many[0]!.id, many[1]!.id, deletion.id]);
        expect((await uow.repositories.tasks.listActive(10)).map((t) => t.id)).toEqual([...many.map((t) => t.id), deletion.id, late.id]);
      });

      it("numbers events added at once (a task's runner and its owner's cancel) one after another, none refused", async () => {
        const task = ids.uuid();
        const added = await Promise.all(['STARTED', 'CANCELED', 'FILE_NOT_FOUND', 'PAUSED'].map((code) => uow.repositories.tasks.addEvent({ taskId: task, code, description: code, details: code, isError: false, time: now })));
        expect(added.map((e) => e.seq).sort()).toEqual([1, 2, 3, 4]);
        expect((await uow.repositories.tasks.listEvents(task, { errorsOnly: false, limit: 10, offset: 0 })).total).toBe(4);
      });

      it('numbers events per task, lists them newest first, errors alone when asked', async () => {
        const [a, b] = [ids.uuid(), ids.uuid()];
        const event = (taskId: string, code: string, isError = false) => uow.repositories.tasks.addEvent({ taskId, code, description: code.toLowerCase(), details: `details of ${code}`, isError, time: now });
        expect(await event(a, 'SUBMITTED')).toEqual({ taskId: a, seq: 1, code: 'SUBMITTED', description: 'submitted', details: 'details of SUBMITTED', isError: false, time: now });
        await event(b, 'SUBMITTED');
        await event(a, 'FILE_NOT_FOUND', true);
        expect((await event(a, 'STARTED')).seq).toBe(3);
        const all = await uow.repositories.tasks.listEvents(a, { errorsOnly: false, limit: 10, offset: 0 });
        expect([all.total, all.events.map((e) => [e.seq, e.code, e.isError])]).toEqual([3, [[3, 'STARTED', false], [2, 'FILE_NOT_FOUND', true], [1, 'SUBMITTED', false]]]);
        expect(await uow.repositories.tasks.listEvents(a, { errorsOnly: true, limit: 10, offset: 0 })).toEqual({ total: 1, events: [expect.objectContaining({ code: 'FILE_NOT_FOUND', time: now })] });
        expect((await uow.repositories.tasks.listEvents(a, { errorsOnly: false, limit: 1, offset: 1 })).events.map((e) => e.seq)).toEqual([2]);
      });

      it("keeps a task's files by kind, in order, after a marker, and forgets them on request", async () => {
        const [a, b] = [ids.uuid(), ids.uuid()];
        const file = (taskId: string, kind: 'succeeded' | 'skipped', source: string) =>
          ({ taskId, kind, sourcePath: source, destinationPath: kind === 'succeeded' ? `/to${source}` : null, errorCode: kind === 'skipped' ? 'FILE_NOT_FOUND' : null, errorDetails: kind === 'skipped' ? 'gone' : null, isDirectory: false, time: now });
        await uow.repositories.tasks.addFiles([file(a, 'succeeded', '/1'), file(a, 'succeeded', '/2')]);
        // a later batch goes on from the last number, kinds and tasks numbered apart, in one call or several
        await uow.repositories.tasks.addFiles([file(a, 'skipped', '/gone'), file(a, 'succeeded', '/3'), file(b, 'succeeded', '/other')]);
        await uow.repositories.tasks.addFiles([]);
        const many = Array.from({ length: 250 }, (_, i) => file(b, 'succeeded', `/many${i}`));
        await uow.repositories.tasks.addFiles(many);
        expect((await uow.repositories.tasks.listFiles(b, 'succeeded', 0, 1000)).map((f) => f.seq)).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
        expect((await uow.repositories.tasks.listFiles(b, 'succeeded', 250, 10)).map((f) => f.sourcePath)).toEqual(['/many249']);
        expect((await uow.repositories.tasks.listFiles(a, 'succeeded', 0, 10)).map((f) => [f.seq, f.sourcePath, f.destinationPath])).toEqual([[1, '/1', '/to/1'], [2, '/2', '/to/2'], [3, '/3', '/to/3']]);
        expect((await uow.repositories.tasks.listFiles(a, 'succeeded', 1, 1)).map((f) => f.sourcePath)).toEqual(['/2']);
        expect(await uow.repositories.tasks.listFiles(a, 'skipped', 0, 10)).toEqual([{ taskId: a, kind: 'skipped', seq: 1, sourcePath: '/gone', destinationPath: null, errorCode: 'FILE_NOT_FOUND', errorDetails: 'gone', isDirectory: false, time: now }]);
        await uow.repositories.tasks.clearFiles(a);
        expect(await uow.repositories.tasks.listFiles(a, 'succeeded', 0, 10)).toEqual([]);
        expect(await uow.repositories.tasks.listFiles(a, 'skipped', 0, 10)).toEqual([]);
        expect(await uow.repositories.tasks.listFiles(b, 'succeeded', 0, 1000)).toHaveLength(251);
      });
    });

    describe('identities, groups, tokens, subscriptions', () => {
      it('keeps identity sets: written back members list under their set, primary first, then by link time', async () => {
        const alice = await identity('alice');
        const work = await identity('alice@work.example.org');
        const other = await identity('carol');
        await expect(identity('alice')).rejects.toThrow(ConflictError);
        await uow.repositories.identities.update([{ ...work, set_id: alice.set_id, linked_at: now }]);
        const set = await uow.repositories.identities.listSet(alice.id);
        expect(set.map((i) => i.username)).toEqual(['alice', 'alice@work.example.org']);
        expect(set[1].linked_at).toEqual(now);
        expect((await uow.repositories.identities.listSet(other.id)).map((i) => i.id)).toEqual([other.id]);
        expect((await uow.repositories.identities.findByUsername('carol'))?.id).toBe(other.id);
        await uow.repositories.identities.update([{ ...other, password_hash: 'hash', name: 'Carol' }]);
        expect(await uow.repositories.identities.findById(other.id)).toEqual({ ...other, password_hash: 'hash', name: 'Carol' });
        const later = new Date(now.getTime() + 1000);
        await uow.repositories.identities.update([{ ...other, set_id: alice.set_id, linked_at: later }]);
        expect((await uow.repositories.identities.listSet(alice.id)).map((i) => i.username)).toEqual(['alice', 'alice@work.example.org', 'carol']);
      });

      it('finds and keeps usernames without regard to case, as stored (security review two, finding 2)', async () => {
        const carol = await identity('Carol@Example.org');
        expect((await uow.repositories.identities.findByUsername('carol@example.org'))?.id).toBe(carol.id);
        expect((await uow.repositories.identities.findByUsername('CAROL@EXAMPLE.ORG'))?.username).toBe('Carol@Example.org');
        await expect(identity('carol@example.org')).rejects.toThrow(ConflictError);
        expect(await uow.repositories.identities.findByUsername('carol@example.or')).toBeNull();
      });

      it('resolves group memberships and access tokens by hash', async () => {
        const alice = await identity('alice');
        const groupId = ids.uuid();
        await uow.repositories.groups.add({ id: groupId, name: 'lab', created_at: now });
        await expect(uow.repositories.groups.add({ id: ids.uuid(), name: 'lab', created_at: now })).rejects.toThrow(ConflictError);
        await uow.repositories.groups.addMember(groupId, alice.id);
        await uow.repositories.groups.addMember(groupId, alice.id);
        expect(await uow.repositories.groups.groupIdsOf([alice.id])).toEqual([groupId]);
        expect(await uow.repositories.groups.groupIdsOf([ids.uuid()])).toEqual([]);
        const token = tokenOf('secret', alice.id);
        await uow.repositories.accessTokens.add(token);
        expect(await uow.repositories.accessTokens.findByHash(hashToken('secret'))).toEqual(token);
        expect(await uow.repositories.accessTokens.findByHash(hashToken('other'))).toBeNull();
      });

      it('lists the subscriptions of any of the given members', async () => {
        const [a, b, member, group] = [ids.uuid(), ids.uuid(), ids.uuid(), ids.uuid()];
        await uow.repositories.subscriptions.add({ id: a, name: 'A', member_ids: [member], administrator_ids: [], created_at: now });
        await uow.repositories.subscriptions.add({ id: b, name: 'B', member_ids: [group], administrator_ids: [member], created_at: now });
        expect((await uow.repositories.subscriptions.listForMembers([member, group])).map((s) => s.id)).toEqual([a, b]);
        expect((await uow.repositories.subscriptions.listForMembers([member])).map((s) => s.name)).toEqual(['A']);
        await uow.repositories.subscriptions.addMember(b, member);
        expect((await uow.repositories.subscriptions.findByName('B'))?.member_ids.sort()).toEqual([group, member].sort());
        expect((await uow.repositories.subscriptions.findById(b))?.administrator_ids).toEqual([member]);
        await uow.repositories.subscriptions.addAdministrator(a, group);
        await uow.repositories.subscriptions.addAdministrator(a, group);
        expect((await uow.repositories.subscriptions.findByName('A'))?.administrator_ids).toEqual([group]);
      });
    });

    describe('clients, scopes, consents, sessions', () => {
      it('stores clients with branding and redirect URIs', async () => {
        const client = {
          id: ids.uuid(),
          display_name: 'Portal',
          branding: { logo_url: 'https://portal.example.org/logo.png', primary_color: '#112233', background_color: null },
          redirect_uris: ['https://portal.example.org/back'],
          public_client: false,
          secret_hash: hashToken('s'),
          resource_server: 'transfer.api.globus.org',
          template_id: null,
          created_at: now,
        };
        await uow.repositories.clients.add(client);
        expect(await uow.repositories.clients.findById(client.id)).toEqual(client);
        expect(await uow.repositories.clients.findByIds([ids.uuid(), client.id])).toEqual([client]);
        expect((await uow.repositories.clients.list()).map((c) => c.id)).toEqual([client.id]);
        const instance = { ...client, id: ids.uuid(), display_name: 'Instance', redirect_uris: ['/v2/web/auth-code'], template_id: client.id };
        await uow.repositories.clients.add(instance);
        expect(await uow.repositories.clients.findById(instance.id)).toEqual(instance);
        const renamed = { ...client, display_name: 'Portal 2', redirect_uris: ['https://portal.example.org/again'], secret_hash: hashToken('t'), public_client: true, resource_server: null };
        await uow.repositories.clients.update(renamed);
        // only the name, the redirect URIs and the secret change
        expect(await uow.repositories.clients.findById(client.id)).toEqual({ ...client, display_name: 'Portal 2', redirect_uris: ['https://portal.example.org/again'], secret_hash: hashToken('t') });
        await uow.repositories.clients.delete(client.id);
        expect((await uow.repositories.clients.list()).map((c) => c.id)).toEqual([instance.id]);
      });

      it('stores scopes with unique names', async () => {
        const scope = scopeOf('urn:xfer:scope:transfer:all', { dependent_scope_ids: [ids.uuid(), ids.uuid()], resource_server: 'transfer' });
        await uow.repositories.scopes.add(scope);
        await expect(uow.repositories.scopes.add({ ...scope, id: ids.uuid() })).rejects.toThrow(ConflictError);
        expect(await uow.repositories.scopes.findByName(scope.name)).toEqual(scope);
        expect(await uow.repositories.scopes.findByIds([scope.id])).toEqual([scope]);
      });

      it('numbers consents and builds dependency paths from the parent', async () => {
        const alice = await identity('alice');
        const base = { client_id: ids.uuid(), scope_id: ids.uuid(), identity_id: alice.id, created: now, updated: now, last_used: null, status: 'approved' as const };
        const root = await uow.repositories.consents.add({ ...base, parent_path: [] });
        const child = await uow.repositories.consents.add({ ...base, parent_path: root.dependency_path });
        const grandchild = await uow.repositories.consents.add({ ...base, parent_path: child.dependency_path });
        expect(root.dependency_path).toEqual([root.id]);
        expect(grandchild.dependency_path).toEqual([root.id, child.id, grandchild.id]);
        const listed = await uow.repositories.consents.listForIdentities([alice.id]);
        expect(listed.map((c) => c.dependency_path)).toEqual([[root.id], [root.id, child.id], [root.id, child.id, grandchild.id]]);
        expect(listed[0]).toEqual(root);
        expect(await uow.repositories.consents.listForIdentities([ids.uuid()])).toEqual([]);
        const used = new Date(now.getTime() + 60_000);
        const other = await uow.repositories.consents.add({ ...base, parent_path: [] });
        await uow.repositories.consents.update([{ ...child, last_used: used }, { ...grandchild, status: 'revoked', updated: used }]);
        const after = await uow.repositories.consents.listForIdentities([alice.id]);
        expect(after).toEqual([root, { ...child, last_used: used }, { ...grandchild, status: 'revoked', updated: used }, other]);
        await uow.repositories.consents.update([]);
      });

      it('spends an authorization code once', async () => {
        const code = {
          code_hash: hashToken('code'),
          client_id: ids.uuid(),
          identity_id: ids.uuid(),
          redirect_uri: 'https://portal.example.org/back?x=1',
          scopes: ['openid', 'urn:xfer:scope:transfer:all'],
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          nonce: 'n-0S6_WzA2Mj',
          auth_time: new Date(now.getTime() - 60_000),
          created_at: now,
          expires_at: new Date(now.getTime() + 600_000),
          used_at: null,
        };
        await uow.repositories.authorizationCodes.add(code);
        expect(await uow.repositories.authorizationCodes.findByHash(code.code_hash)).toEqual(code);
        expect(await uow.repositories.authorizationCodes.findByHash(hashToken('other'))).toBeNull();
        const outcomes = await Promise.all([1, 2, 3].map(() => uow.transaction((r) => r.authorizationCodes.markUsed(code.code_hash, now))));
        expect(outcomes.filter(Boolean)).toHaveLength(1);
        expect((await uow.repositories.authorizationCodes.findByHash(code.code_hash))?.used_at).toEqual(now);
        expect(await uow.repositories.authorizationCodes.markUsed(hashToken('other'), now)).toBe(false);
      });

      it('revokes refresh tokens and the access tokens issued with them, per client and identity', async () => {
        const [alice, bob] = [await identity('alice'), await identity('bob')];
        const [portal, other] = [ids.uuid(), ids.uuid()];
        const refresh = { token_hash: hashToken('refresh'), identity_id: alice.id, client_id: portal, scopes: ['s'], resource_server: 'rs', authorization_code_hash: null, auth_time: now, consent_client_id: null, created_at: now, revoked_at: null };
        await uow.repositories.refreshTokens.add(refresh);
        await uow.repositories.refreshTokens.add({ ...refresh, token_hash: hashToken('bob-refresh'), identity_id: bob.id });
        expect(await uow.repositories.refreshTokens.findByHash(refresh.token_hash)).toEqual(refresh);
        await uow.repositories.accessTokens.add(tokenOf('a1', alice.id, { client_id: portal, refresh_token_hash: refresh.token_hash }));
        await uow.repositories.accessTokens.add(tokenOf('a2', alice.id, { client_id: portal }));
        await uow.repositories.accessTokens.add(tokenOf('a3', alice.id, { client_id: other }));
        await uow.repositories.accessTokens.add(tokenOf('b1', bob.id, { client_id: portal }));
        const later = new Date(now.getTime() + 1000);
        await uow.repositories.accessTokens.revokeByRefreshToken(refresh.token_hash, now);
        expect((await uow.repositories.accessTokens.findByHash(hashToken('a1')))?.revoked_at).toEqual(now);
        expect((await uow.repositories.accessTokens.findByHash(hashToken('a2')))?.revoked_at).toBeNull();
        expect(await uow.repositories.accessTokens.revokeIssuedTo([alice.id], portal, later)).toBe(1);
        expect((await uow.repositories.accessTokens.findByHash(hashToken('a1')))?.revoked_at).toEqual(now);
        expect((await uow.repositories.accessTokens.findByHash(hashToken('a2')))?.revoked_at).toEqual(later);
        expect((await uow.repositories.accessTokens.findByHash(hashToken('a3')))?.revoked_at).toBeNull();
        expect((await uow.repositories.accessTokens.findByHash(hashToken('b1')))?.revoked_at).toBeNull();
        expect(await uow.repositories.refreshTokens.revoke(refresh.token_hash, now)).toBe(true);
        expect(await uow.repositories.refreshTokens.revoke(refresh.token_hash, later)).toBe(false);
        expect((await uow.repositories.refreshTokens.findByHash(refresh.token_hash))?.revoked_at).toEqual(now);
        expect(await uow.repositories.refreshTokens.revokeIssuedTo([alice.id, bob.id], portal, later)).toBe(1);
        expect((await uow.repositories.refreshTokens.findByHash(hashToken('bob-refresh')))?.revoked_at).toEqual(later);
        const fromCode = { ...refresh, authorization_code_hash: hashToken('code') };
        await uow.repositories.refreshTokens.add({ ...fromCode, token_hash: hashToken('r1') });
        await uow.repositories.refreshTokens.add({ ...fromCode, token_hash: hashToken('r2') });
        expect((await uow.repositories.refreshTokens.revokeIssuedForCode(hashToken('code'), later)).sort()).toEqual([hashToken('r1'), hashToken('r2')].sort());
        expect(await uow.repositories.refreshTokens.revokeIssuedForCode(hashToken('code'), later)).toEqual([]);
      });

      it('reads a session with its identity and the identity set, until the session ends', async () => {
        const alice = await identity('alice');
        const work = await identity('alice@work.example.org');
        await uow.repositories.identities.update([{ ...work, set_id: alice.set_id, linked_at: now }]);
        const session = { id_hash: hashToken('browser'), identity_id: work.id, created_at: now, expires_at: new Date(now.getTime() + 1000) };
        await uow.repositories.sessions.add(session);
        const holder = await uow.repositories.sessions.findHolder(session.id_hash);
        expect(holder?.session).toEqual(session);
        expect(holder?.identity.id).toBe(work.id);
        expect(holder?.set.map((i) => i.username)).toEqual(['alice', 'alice@work.example.org']);
        // read again after a write: never what was remembered before it
        await uow.repositories.sessions.delete(session.id_hash);
        expect(await uow.repositories.sessions.findHolder(session.id_hash)).toBeNull();
        await uow.repositories.sessions.add({ ...session, id_hash: hashToken('orphan'), identity_id: ids.uuid() });
        expect(await uow.repositories.sessions.findHolder(hashToken('orphan'))).toBeNull();
        expect(await uow.repositories.sessions.findHolder(hashToken('nope'))).toBeNull();
      });

      it('stores and deletes sessions by hash', async () => {
        const session = { id_hash: hashToken('cookie'), identity_id: ids.uuid(), created_at: now, expires_at: new Date(now.getTime() + 1000) };
        await uow.repositories.sessions.add(session);
        expect(await uow.repositories.sessions.findByHash(session.id_hash)).toEqual(session);
        await uow.repositories.sessions.delete(session.id_hash);
        expect(await uow.repositories.sessions.findByHash(session.id_hash)).toBeNull();
      });

      it('ends every session of one identity, and purges expired sessions, codes and tokens in bounded batches', async () => {
        const [alice, bob] = [ids.uuid(), ids.uuid()];
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const session = (n: number, identity_id: string, expires: number) => ({ id_hash: hashToken(`s${n}`), identity_id, created_at: now, expires_at: at(expires) });
        for (const s of [session(1, alice, 10), session(2, alice, 100), session(3, bob, 10), session(4, bob, 20), session(5, bob, 100)]) await uow.repositories.sessions.add(s);
        await uow.repositories.sessions.deleteForIdentity(alice);
        expect(await uow.repositories.sessions.findByHash(hashToken('s2'))).toBeNull();
        expect((await uow.repositories.sessions.findByHash(hashToken('s5')))?.identity_id).toBe(bob);
        expect(await uow.repositories.sessions.purgeExpired(at(50), 1)).toBe(1);
        expect(await uow.repositories.sessions.purgeExpired(at(50), 10)).toBe(1);
        expect(await uow.repositories.sessions.purgeExpired(at(50), 10)).toBe(0);
        expect(await uow.repositories.sessions.findByHash(hashToken('s5'))).toEqual(session(5, bob, 100));

        const code = { code_hash: hashToken('c'), client_id: ids.uuid(), identity_id: alice, redirect_uri: 'https://x.example.org/', scopes: ['s'], code_challenge: null, code_challenge_method: null, nonce: null, auth_time: null, created_at: now, expires_at: at(10), used_at: null };
        await uow.repositories.authorizationCodes.add(code);
        await uow.repositories.authorizationCodes.add({ ...code, code_hash: hashToken('c2'), expires_at: at(100) });
        expect(await uow.repositories.authorizationCodes.purgeExpired(at(50), 10)).toBe(1);
        expect(await uow.repositories.authorizationCodes.findByHash(hashToken('c2'))).toMatchObject({ code_hash: hashToken('c2'), identity_id: alice, expires_at: at(100) });

        const holder = await identity('carol');
        await uow.repositories.accessTokens.add(tokenOf('expired', holder.id, { expires_at: at(10) }));
        await uow.repositories.accessTokens.add(tokenOf('live', holder.id, { expires_at: at(100) }));
        await uow.repositories.accessTokens.add(tokenOf('forever', holder.id, { expires_at: null }));
        expect(await uow.repositories.accessTokens.purgeExpired(at(50), 10)).toBe(1);
        expect((await uow.repositories.accessTokens.listForIdentity(holder.id)).map((t) => t.token_hash).sort()).toEqual([hashToken('live'), hashToken('forever')].sort());
      });

      it('keeps signing keys oldest first, with their JWK, and writes back only when they were retired', async () => {
        const key = (kid: string, seconds: number) => ({ kid, algorithm: 'RS512', public_jwk: { kid, kty: 'RSA', n: 'abc', e: 'AQAB' }, private_key: `sealed-${kid}`, created_at: new Date(now.getTime() + seconds * 1000), retired_at: null });
        await uow.repositories.signingKeys.add(key('b', 10));
        await uow.repositories.signingKeys.add(key('a', 0));
        expect(await uow.repositories.signingKeys.list()).toEqual([key('a', 0), key('b', 10)]);
        await uow.repositories.signingKeys.update({ ...key('a', 0), retired_at: now, private_key: 'ignored' });
        expect((await uow.repositories.signingKeys.list())[0]).toEqual({ ...key('a', 0), retired_at: now });
        await uow.repositories.signingKeys.delete('a');
        expect((await uow.repositories.signingKeys.list()).map((k) => k.kid)).toEqual(['b']);
      });

      it('keeps access rules per share in creation order, writes back permissions and expiry, and finds the shares granting principals', async () => {
        const [share, other, alice, lab] = [ids.uuid(), ids.uuid(), ids.uuid(), ids.uuid()];
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const rule = (principal_type: 'identity' | 'group' | 'all_authenticated_users', principal: string, endpoint_id: string, seconds: number, expiration_date: Date | null = null) => ({
          id: ids.uuid(), endpoint_id, principal_type, principal, path: '/data/', permissions: 'r' as const, notify_email: null, notify_message: null, create_time: at(seconds), expiration_date,
        });
        const second = rule('group', lab, share, 2);
        const first = rule('identity', alice, share, 1);
        const expired = rule('identity', alice, other, 3, at(-1));
        for (const r of [second, first, expired]) await uow.repositories.accessRules.add(r);
        expect(await uow.repositories.accessRules.listForEndpoint(share)).toEqual([first, second]);
        await uow.repositories.accessRules.update({ ...first, permissions: 'rw', expiration_date: at(100), path: '/ignored/' });
        expect(await uow.repositories.accessRules.findById(first.id)).toEqual({ ...first, permissions: 'rw', expiration_date: at(100) });
        expect(await uow.repositories.accessRules.sharesGranting([alice], now)).toEqual([share]);
        expect(await uow.repositories.accessRules.sharesGranting([ids.uuid()], now)).toEqual([]);
        const everyone = rule('all_authenticated_users', '', other, 4);
        await uow.repositories.accessRules.add(everyone);
        expect(await uow.repositories.accessRules.sharesGranting([ids.uuid()], now)).toEqual([other]);
        await uow.repositories.accessRules.delete(first.id);
        await uow.repositories.accessRules.deleteForEndpoint(other);
        expect(await uow.repositories.accessRules.listForEndpoint(share)).toEqual([second]);
        expect(await uow.repositories.accessRules.findById(everyone.id)).toBeNull();
      });

      it('counts failed sign-ins per key within a window, clears a key, and purges old ones in bounded batches', async () => {
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        const [account, address, other] = [hashToken('account'), hashToken('address'), hashToken('other')];
        await uow.repositories.signInFailures.add([account, address], at(0));
        await uow.repositories.signInFailures.add([account, address], at(10));
        await uow.repositories.signInFailures.add([other], at(20));
        await uow.repositories.signInFailures.add([], at(20));
        expect(await uow.repositories.signInFailures.countSince(account, at(0))).toBe(2);
        expect(await uow.repositories.signInFailures.countSince(account, at(5))).toBe(1);
        expect(await uow.repositories.signInFailures.countSince(address, at(11))).toBe(0);
        await uow.repositories.signInFailures.clear(account);
        expect(await uow.repositories.signInFailures.countSince(account, at(0))).toBe(0);
        expect(await uow.repositories.signInFailures.countSince(address, at(0))).toBe(2);
        expect(await uow.repositories.signInFailures.purgeBefore(at(15), 1)).toBe(1);
        expect(await uow.repositories.signInFailures.purgeBefore(at(15), 10)).toBe(1);
        expect(await uow.repositories.signInFailures.countSince(other, at(0))).toBe(1);
      });
    });

    describe('administration lookups', () => {
      it('moves identities between sets, lists and removes group members', async () => {
        const alice = await identity('alice');
        const bob = await identity('bob');
        await uow.repositories.identities.update([{ ...bob, set_id: alice.id, linked_at: now }]);
        expect((await uow.repositories.identities.listSet(alice.id)).map((i) => i.id)).toEqual([alice.id, bob.id]);
        await uow.repositories.identities.update([{ ...bob, set_id: bob.id, linked_at: null }]);
        expect((await uow.repositories.identities.findById(bob.id))).toMatchObject({ set_id: bob.id, linked_at: null });
        const groupId = ids.uuid();
        await uow.repositories.groups.add({ id: groupId, name: 'lab', created_at: now });
        await uow.repositories.groups.addMember(groupId, alice.id);
        await uow.repositories.groups.addMember(groupId, bob.id);
        expect(await uow.repositories.groups.memberIds(groupId)).toEqual([alice.id, bob.id].sort());
        await uow.repositories.groups.removeMember(groupId, alice.id);
        expect(await uow.repositories.groups.memberIds(groupId)).toEqual([bob.id]);
        expect((await uow.repositories.groups.list()).map((g) => g.name)).toEqual(['lab']);
      });

      it('finds tokens by id prefix, lists them per identity and revokes them once', async () => {
        const alice = await identity('alice');
        const t1 = tokenOf('one', alice.id);
        const t2 = { ...t1, token_hash: hashToken('two'), created_at: new Date(now.getTime() + 1000) };
        await uow.repositories.accessTokens.add(t1);
        await uow.repositories.accessTokens.add(t2);
        expect(await uow.repositories.accessTokens.findByHashPrefix(t1.token_hash.slice(0, 16))).toEqual([t1]);
        expect(await uow.repositories.accessTokens.findByHashPrefix('not-hex%')).toEqual([]);
        expect((await uow.repositories.accessTokens.listForIdentity(alice.id)).map((t) => t.token_hash)).toEqual([t1.token_hash, t2.token_hash]);
        const later = new Date(now.getTime() + 5000);
        await uow.repositories.accessTokens.revoke(t1.token_hash, now);
        await uow.repositories.accessTokens.revoke(t1.token_hash, later);
        expect((await uow.repositories.accessTokens.findByHash(t1.token_hash))?.revoked_at).toEqual(now);
      });

      it('finds and deletes single role assignments and pause rules; lists subscriptions and scopes', async () => {
        const endpointId = ids.uuid();
        const assignment = { id: ids.uuid(), endpoint_id: endpointId, role: 'administrator' as const, principal_type: 'identity' as const, principal_id: ids.uuid(), created_at: now };
        await uow.repositories.roles.add(assignment);
        expect(await uow.repositories.roles.findById(assignment.id)).toEqual(assignment);
        await uow.repositories.roles.delete(assignment.id);
        expect(await uow.repositories.roles.findById(assignment.id)).toBeNull();
        const rule = { id: ids.uuid(), endpoint_id: endpointId, message: 'm', start_time: null, identity_id: null, ...ALL_PAUSED, modified_by: 'a', modified_by_id: ids.uuid(), created_by_host_manager: false };
        await uow.repositories.pauseRules.add(rule);
        expect(await uow.repositories.pauseRules.findById(rule.id)).toEqual(rule);
        await uow.repositories.pauseRules.delete(rule.id);
        expect(await uow.repositories.pauseRules.findById(rule.id)).toBeNull();
        await uow.repositories.subscriptions.add({ id: ids.uuid(), name: 'B sub', member_ids: [], administrator_ids: [], created_at: now });
        await uow.repositories.subscriptions.add({ id: ids.uuid(), name: 'A sub', member_ids: [], administrator_ids: [], created_at: now });
        expect((await uow.repositories.subscriptions.list()).map((x) => x.name)).toEqual(['A sub', 'B sub']);
        await uow.repositories.scopes.add(scopeOf('z:scope'));
        await uow.repositories.scopes.add(scopeOf('a:scope'));
        expect((await uow.repositories.scopes.list()).map((x) => x.name)).toEqual(['a:scope', 'z:scope']);
      });

      it('writes back what a consent set revoked, and only that', async () => {
        const alice = await identity('alice');
        const base = { client_id: ids.uuid(), scope_id: ids.uuid(), identity_id: alice.id, created: now, updated: now, last_used: null, status: 'approved' as const };
        const root = await uow.repositories.consents.add({ ...base, parent_path: [] });
        const child = await uow.repositories.consents.add({ ...base, parent_path: root.dependency_path });
        const other = await uow.repositories.consents.add({ ...base, parent_path: [] });
        const later = new Date(now.getTime() + 1000);
        const consents = new ConsentSet(await uow.repositories.consents.listForIdentities([alice.id]));
        consents.revoke(root.id, later);
        await uow.repositories.consents.update(consents.changes());
        expect((await uow.repositories.consents.findById(child.id))).toMatchObject({ status: 'revoked', updated: later });
        expect((await uow.repositories.consents.findById(root.id))?.status).toBe('revoked');
        expect((await uow.repositories.consents.findById(other.id))?.status).toBe('approved');
      });

      it('keeps maintenance mode', async () => {
        expect(await uow.repositories.settings.maintenance()).toBeNull();
        const maintenance = { message: 'Disk swap', retry_after_seconds: 120, since: now };
        await uow.repositories.settings.setMaintenance(maintenance);
        await uow.repositories.settings.setMaintenance({ ...maintenance, message: 'Disk swap, again' });
        expect(await uow.repositories.settings.maintenance()).toEqual({ ...maintenance, message: 'Disk swap, again' });
        await uow.repositories.settings.setMaintenance(null);
        expect(await uow.repositories.settings.maintenance()).toBeNull();
      });
    });

    describe('nodes', () => {
      const node = (name: string, at = now) => ({ id: ids.uuid(), name, url: `https://${name.toLowerCase()}.example.org:8443/xfer`, secretHash: 'a'.repeat(64), createdAt: at, lastContact: null });

      it('keeps nodes by id and by name (case ignored, unique), listed by name', async () => {
        const [lab, archive] = [node('Lab-1'), node('archive')];
        expect(await uow.repositories.nodes.add(lab)).toBe(true);
        expect(await uow.repositories.nodes.add(archive)).toBe(true);
        expect(await uow.repositories.nodes.add(node('LAB-1'))).toBe(false);
        expect(await uow.repositories.nodes.findById(lab.id)).toEqual(lab);
        expect(await uow.repositories.nodes.findByName('lab-1')).toEqual(lab);
        expect(await uow.repositories.nodes.findByName('other')).toBeNull();
        expect((await uow.repositories.nodes.list()).map((n) => n.name)).toEqual(['archive', 'Lab-1']);
      });

      it("changes a node's secret and last contact, and forgets it", async () => {
        const lab = node('lab');
        await uow.repositories.nodes.add(lab);
        expect(await uow.repositories.nodes.saveSecretHash(lab.id, 'b'.repeat(64))).toBe(true);
        await uow.repositories.nodes.saveLastContact(lab.id, new Date(now.getTime() + 1000));
        expect(await uow.repositories.nodes.findById(lab.id)).toEqual({ ...lab, secretHash: 'b'.repeat(64), lastContact: new Date(now.getTime() + 1000) });
        expect(await uow.repositories.nodes.delete(lab.id)).toBe(true);
        expect(await uow.repositories.nodes.delete(lab.id)).toBe(false);
        expect(await uow.repositories.nodes.saveSecretHash(lab.id, 'c'.repeat(64))).toBe(false);
        expect(await uow.repositories.nodes.findById(lab.id)).toBeNull();
      });

      it('lists the directories of a node that endpoints are bound to, and no other node\'s', async () => {
        const [lab, other] = [node('lab'), node('other')];
        await uow.repositories.nodes.add(lab);
        await uow.repositories.nodes.add(other);
        const alice = await identity('alice');
        const bound = async (name: string, attachment: StorageAttachment | null) => {
          const endpoint = serverEndpoint(alice, name);
          if (attachment) endpoint.attachStorage(attachment, attachment.type === 'node' ? 'https://node.example.org' : undefined);
          await uow.repositories.endpoints.insert(endpoint);
          return endpoint.id;
        };
        const first = await bound('First', { type: 'node', node: lab.id, root: '/srv/first' });
        const second = await bound('Second', { type: 'node', node: lab.id, root: `/srv/${other.id}` });
        await bound('Elsewhere', { type: 'node', node: other.id, root: `/srv/${lab.id}` });
        await bound('Local', { type: 'posix', root: `/srv/${lab.id}` });
        await bound('None', null);
        expect(await uow.repositories.nodes.servedRoots(lab.id)).toEqual([{ endpointId: first, root: '/srv/first' }, { endpointId: second, root: `/srv/${other.id}` }].sort((a, b) => (a.endpointId < b.endpointId ? -1 : 1)));
        expect(await uow.repositories.nodes.servedRoots(ids.uuid())).toEqual([]);
      });

      it('keeps call keys live from their last renewal, and forgets old ones', async () => {
        const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
        await uow.repositories.nodes.publishCallKey({ kid: 'b', publicJwk: '{"kty":"OKP","x":"b"}' }, at(0));
        await uow.repositories.nodes.publishCallKey({ kid: 'a', publicJwk: '{"kty":"OKP","x":"a"}' }, at(10));
        expect(await uow.repositories.nodes.callKeysSince(at(5))).toEqual([{ kid: 'a', publicJwk: '{"kty":"OKP","x":"a"}' }]);
        // renewed: live again
        await uow.repositories.nodes.publishCallKey({ kid: 'b', publicJwk: '{"kty":"OKP","x":"b"}' }, at(20));
        expect((await uow.repositories.nodes.callKeysSince(at(5))).map((key) => key.kid)).toEqual(['a', 'b']);
        expect(await uow.repositories.nodes.purgeCallKeysBefore(at(15))).toBe(1);
        expect((await uow.repositories.nodes.callKeysSince(at(0))).map((key) => key.kid)).toEqual(['b']);
      });
    });

    describe("a node's storage gateways, user credentials and collections", () => {
      const gateway = (nodeId: string, name: string, at = now) => newStorageGateway({ display_name: name, root: `/srv/${name}`, allowed_domains: ['example.org'] }, { id: ids.uuid(), nodeId, now: at });
      const credential = (nodeId: string, gatewayId: string, identityId: string, at = now): UserCredentialState => ({ id: ids.uuid(), node_id: nodeId, storage_gateway_id: gatewayId, identity_id: identityId, username: 'lab', display_name: null, policies: { DATA_TYPE: 'posix_user_credential_policies#1.0.0' }, created_at: at });

      it('keeps gateways by node, oldest first, and forgets one or all of a node\'s', async () => {
        const [lab, other] = [ids.uuid(), ids.uuid()];
        const later = gateway(lab, 'later', new Date(now.getTime() + 1000));
        const first = gateway(lab, 'first');
        const elsewhere = gateway(other, 'elsewhere');
        for (const g of [later, first, elsewhere]) await uow.repositories.storageGateways.add(g);
        expect(await uow.repositories.storageGateways.findById(first.id)).toEqual(first);
        expect(await uow.repositories.storageGateways.listForNode(lab)).toEqual([first, later]);
        const renamed = updatedStorageGateway(first, { display_name: 'renamed', policies: { groups_allow: ['lab'], groups_deny: [] } }, false);
        await uow.repositories.storageGateways.update(renamed);
        expect(await uow.repositories.storageGateways.findById(first.id)).toEqual(renamed);
        await uow.repositories.storageGateways.delete(later.id);
        expect(await uow.repositories.storageGateways.listForNode(lab)).toEqual([renamed]);
        await uow.repositories.storageGateways.deleteForNode(lab);
        expect(await uow.repositories.storageGateways.listForNode(lab)).toEqual([]);
        expect(await uow.repositories.storageGateways.findById(elsewhere.id)).toEqual(elsewhere);
      });

      it('keeps one user credential per identity and gateway, listed by node or gateway', async () => {
        const [lab, gw, gw2, alice, bob] = [ids.uuid(), ids.uuid(), ids.uuid(), ids.uuid(), ids.uuid()];
        const a = credential(lab, gw, alice);
        const b = credential(lab, gw2, alice, new Date(now.getTime() + 1000));
        expect(await uow.repositories.userCredentials.add(a)).toBe(true);
        expect(await uow.repositories.userCredentials.add(b)).toBe(true);
        expect(await uow.repositories.userCredentials.add(credential(lab, gw, alice))).toBe(false);
        const c = credential(lab, gw, bob, new Date(now.getTime() + 2000));
        expect(await uow.repositories.userCredentials.add(c)).toBe(true);
        expect(await uow.repositories.userCredentials.listForNode(lab)).toEqual([a, b, c]);
        expect(await uow.repositories.userCredentials.listForNode(lab, gw)).toEqual([a, c]);
        await uow.repositories.userCredentials.update({ ...a, username: 'other', display_name: 'mine' });
        expect(await uow.repositories.userCredentials.findById(a.id)).toEqual({ ...a, username: 'other', display_name: 'mine' });
        await uow.repositories.userCredentials.delete(b.id);
        expect(await uow.repositories.userCredentials.findById(b.id)).toBeNull();
        await uow.repositories.userCredentials.deleteForNode(lab);
        expect(await uow.repositories.userCredentials.listForNode(lab)).toEqual([]);
      });

      it("pages a node's collections, mapped and guest, in creation order, with the caller's roles", async () => {
        const alice = await identity('alice');
        const lab = { id: ids.uuid(), url: 'https://lab.example.org' };
        const g = gateway(lab.id, 'data');
        const mapped = (name: string, seconds: number) => Endpoint.createMappedCollection({ display_name: name, allow_guest_collections: true }, { id: ids.uuid(), owner: alice, now: new Date(now.getTime() + seconds * 1000), node: lab, gateway: g, basePath: '/' });
        const [one, two] = [mapped('One', 0), mapped('Two', 1)];
        await uow.repositories.endpoints.insert(two);
        await uow.repositories.endpoints.insert(one);
        const guest = Endpoint.createShared({ host_endpoint_id: one.id, host_path: '/projects/', display_name: 'Guest' }, { id: ids.uuid(), owner: alice, now: new Date(now.getTime() + 2000), host: one, callerIsHostAdministrator: true });
        await uow.repositories.endpoints.insert(guest);
        await uow.repositories.endpoints.insert(serverEndpoint(alice, 'Not a collection'));
        await uow.repositories.roles.add({ id: ids.uuid(), endpoint_id: two.id, role: 'activity_monitor', principal_type: 'identity', principal_id: alice.id, created_at: now });
        const page1 = await uow.repositories.endpoints.listCollectionsOfNode(lab.id, [alice.id], { after: null, limit: 2 });
        expect(page1.map((c) => [c.endpoint.id, c.endpoint.collectionType, c.assignments.map((a) => a.role)])).toEqual([[one.id, 'mapped', []], [two.id, 'mapped', ['activity_monitor']]]);
        const last = page1[1].endpoint;
        const page2 = await uow.repositories.endpoints.listCollectionsOfNode(lab.id, [], { after: { createdAt: last.snapshot.created_at, id: last.id }, limit: 2 });
        expect(page2.map((c) => [c.endpoint.id, c.endpoint.collectionType, c.endpoint.snapshot.gcs_endpoint_id, c.endpoint.collection?.storage_gateway_id])).toEqual([[guest.id, 'guest', lab.id, g.id]]);
        expect(await uow.repositories.endpoints.listCollectionsOfNode(ids.uuid(), [], { after: null, limit: 10 })).toEqual([]);
      });
    });

    describe('transactions', () => {
      it('commits all the writes of a transaction, or none when it throws', async () => {
        const alice = await identity('alice');
        const kept = serverEndpoint(alice, 'Kept');
        const lost = serverEndpoint(alice, 'Lost');
        await uow.transaction(async (repos) => repos.endpoints.insert(kept));
        await expect(
          uow.transaction(async (repos) => {
            await repos.endpoints.insert(lost);
            await repos.endpoints.insert(serverEndpoint(alice, 'Kept'));
          }),
        ).rejects.toThrow(ConflictError);
        expect((await uow.repositories.endpoints.findById(kept.id))?.snapshot.display_name).toBe('Kept');
        expect(await uow.repositories.endpoints.findById(lost.id)).toBeNull();
      });

      it('keeps concurrent transactions apart', async () => {
        const alice = await identity('alice');
        const endpoints = Array.from({ length: 10 }, (_, i) => serverEndpoint(alice, `Concurrent ${i}`));
        await Promise.all(endpoints.map((e) => uow.transaction(async (repos) => repos.endpoints.insert(e))));
        expect(await Promise.all(endpoints.map(async (e) => (await uow.repositories.endpoints.findById(e.id))?.snapshot.display_name))).toEqual(endpoints.map((_, i) => `Concurrent ${i}`));
      });
    });
  });
}
