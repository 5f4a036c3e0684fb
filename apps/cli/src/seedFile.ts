import { readFileSync, statSync } from 'node:fs';
import { decodeCreateEndpoint, decodeCreateSharedEndpoint, decodeNewAccessRule } from '@xfer/api';
import { DomainError, isClientUsername, isUuid, type CoreServices, type Principal } from '@xfer/core';
import { ConfigError } from '@xfer/config';
import { checkMemoryFiles, type EndpointStorages, type MemoryFiles } from '@xfer/runtime';

/** A seed file that cannot be loaded: the message names the file, the object and the field. */
export class SeedError extends ConfigError {}

type Entry = Record<string, unknown>;

/** The keys each kind of object may have (anything else is a mistake worth naming). */
const KEYS = {
  identities: ['id', 'username', 'name', 'email', 'organization', 'password', 'password_hash', 'linked'],
  groups: ['id', 'name', 'members'],
  subscriptions: ['id', 'name', 'members', 'admins'],
  clients: ['id', 'name', 'secret', 'secret_hash', 'redirect_uris', 'confidential', 'resource_server'],
  tokens: ['identity', 'client', 'value', 'value_hash', 'scopes', 'expires_in', 'expires_at'],
  pause_rules: ['endpoint', 'message', 'identity'],
  nodes: ['id', 'name', 'port', 'owner'],
} as const;
const ENDPOINT_KEYS = ['id', 'owner', 'servers', 'roles', 'shares', 'storage'];
const SECTIONS = ['identities', 'groups', 'subscriptions', 'clients', 'tokens', 'nodes', 'endpoints', 'pause_rules'] as const;

/** Where a seed's data nodes run: the stand-in starts them in its own process. */
export interface SeedNodes {
  /** The URL a node is registered with, from the port the seed gives it (0: a free one). */
  urlFor(port: number): Promise<string>;
  /** A node registered, with its secret: the stand-in starts it once the seed is loaded. */
  added(node: { id: string; name: string; url: string }, secret: string): void;
}

/**
 * A stand-in's seed: JSON or YAML naming identities, groups, subscriptions, clients, tokens (with
 * fixed values), endpoints (their v0.10 fields, owner, servers, roles, shares with access rules)
 * pause rules and data nodes (the stand-in runs them), which refer to each other by name. Applied through the core's use cases, so
 * every rule holds; `nextId` lets an object keep the id the seed gives it.
 */
export class SeedFile {
  private constructor(
    private readonly file: string,
    private readonly content: Record<string, Entry[]>,
  ) {}

  static read(file: string): SeedFile {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SeedError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    let parsed: unknown;
    try {
      // yaml is loaded only for YAML seeds: the stand-in starts once per test file
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      parsed = /\.ya?ml$/i.test(file) ? (require('yaml') as typeof import('yaml')).parse(text) : JSON.parse(text);
    } catch (error) {
      throw new SeedError(`${file}: not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SeedError(`${file}: the seed must be an object of lists (${SECTIONS.join(', ')})`);
    for (const [section, list] of Object.entries(parsed)) {
      if (!(SECTIONS as readonly string[]).includes(section)) throw new SeedError(`${file}: unknown list '${section}' (known: ${SECTIONS.join(', ')})`);
      if (!Array.isArray(list) || list.some((e) => e === null || typeof e !== 'object' || Array.isArray(e))) throw new SeedError(`${file}: '${section}' must be a list of objects`);
    }
    const seed = new SeedFile(file, parsed as Record<string, Entry[]>);
    seed.checkShapes();
    return seed;
  }

  /** Whether the seed declares data nodes (the stand-in makes their certificates first). */
  get declaresNodes(): boolean {
    return (this.content.nodes?.length ?? 0) > 0;
  }

  /** Where an object stands, as every message names it: the file, the list and index, and its name. */
  private where(section: string, index: number, entry: Entry): string {
    const label = typeof entry.username === 'string' ? entry.username : typeof entry.name === 'string' ? entry.name : typeof entry.display_name === 'string' ? entry.display_name : undefined;
    return `${this.file}: ${section}[${index}]${label ? ` (${label})` : ''}`;
  }

  /**
   * What the use cases cannot see before they store: every id a UUID and none given twice (an id
   * names one object in the whole seed), and the nested lists of endpoints made of objects.
   */
  private checkShapes(): void {
    const ids = new Map<string, string>();
    const checkId = (id: unknown, where: string) => {
      if (id === undefined) return;
      if (typeof id !== 'string' || !isUuid(id)) throw new SeedError(`${where}: id: a UUID such as 2f7c5d4e-1b8a-4c3d-9e6f-0a1b2c3d4e5f, not ${JSON.stringify(id)?.slice(0, 60)}`);
      const other = ids.get(id.toLowerCase());
      if (other !== undefined) throw new SeedError(`${where}: id: '${id}' is the id of ${other} too`);
      ids.set(id.toLowerCase(), where.slice(this.file.length + 2));
    };
    const objects = (value: unknown, where: string, what: string): Entry[] => {
      if (value === undefined) return [];
      if (!Array.isArray(value) || value.some((v) => v === null || typeof v !== 'object' || Array.isArray(v))) throw new SeedError(`${where}: a list of ${what}`);
      return value as Entry[];
    };
    for (const section of SECTIONS) {
      for (const [index, entry] of (this.content[section] ?? []).entries()) {
        const where = this.where(section, index, entry);
        // a client's own identity has the client's id (checked when it is made)
        if (!(section === 'identities' && typeof entry.username === 'string' && isClientUsername(entry.username))) checkId(entry.id, where);
        if (section !== 'endpoints') continue;
        objects(entry.roles, `${where}: roles`, '{principal, role}');
        objects(entry.servers, `${where}: servers`, 'server documents');
        for (const [i, share] of objects(entry.shares, `${where}: shares`, 'shared endpoints').entries()) {
          checkId(share.id, `${where}: shares[${i}]`);
          objects(share.access, `${where}: shares[${i}].access`, 'access rules');
        }
      }
    }
  }

  /** Creates every object, in the order their references need; `nextId` makes the next id the services take. Returns how many objects the seed lists. */
  async apply(services: CoreServices, nextId: (id: string) => void, storages: EndpointStorages, nodes: SeedNodes | null): Promise<number> {
    const { admin } = services;
    const count = SECTIONS.reduce((n, section) => n + (this.content[section]?.length ?? 0), 0);
    const each = async (section: (typeof SECTIONS)[number], work: (entry: Entry, at: (field: string) => string) => Promise<void>) => {
      for (const [index, entry] of (this.content[section] ?? []).entries()) {
        const where = this.where(section, index, entry);
        const allowed: readonly string[] | null = section === 'endpoints' ? null : KEYS[section];
        for (const key of Object.keys(entry)) if (allowed && !allowed.includes(key)) throw new SeedError(`${where}: unknown field '${key}' (known: ${allowed.join(', ')})`);
        try {
          await work(entry, (field) => `${where}: ${field}`);
        } catch (error) {
          if (error instanceof SeedError) throw error;
          if (error instanceof DomainError) throw new SeedError(`${where}: ${error.message}`);
          throw error;
        }
      }
    };
    const text = (entry: Entry, field: string, at: (field: string) => string, required = true): string | undefined => {
      const value = entry[field];
      if (value === undefined && !required) return undefined;
      if (typeof value !== 'string') throw new SeedError(`${at(field)}: ${required ? 'required, ' : ''}a string`);
      return value;
    };
    const names = (entry: Entry, field: string, at: (field: string) => string): string[] => {
      const value = entry[field] ?? [];
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new SeedError(`${at(field)}: a list of names`);
      return value as string[];
    };

    // a client's own identity (an export lists it among identities) is made by the client, below
    const ofClient = (entry: Entry) => typeof entry.username === 'string' && isClientUsername(entry.username);
    // passwords are hashed (scrypt, on libuv's threads) side by side, while the rest loads: their
    // identities' other fields are written meanwhile (each write reads the row afresh)
    const passwords: Promise<Error | null>[] = [];
    await each('identities', async (entry, at) => {
      if (ofClient(entry)) return;
      const username = text(entry, 'username', at)!;
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      await admin.identities.addIdentity({ username, name: text(entry, 'name', at, false) ?? null, email: text(entry, 'email', at, false) ?? null, organization: text(entry, 'organization', at, false) ?? null });
      const passwordHash = text(entry, 'password_hash', at, false);
      if (passwordHash !== undefined) await admin.identities.setPasswordHash(username, passwordHash);
      const password = text(entry, 'password', at, false);
      if (password !== undefined) {
        const where = at('password');
        passwords.push(admin.identities.setPassword(username, password, 'fixture').then(() => null, (error: Error) => (error instanceof DomainError ? new SeedError(`${where}: ${error.message}`) : error)));
      }
    });
    const clients = new Map<string, string>();
    await each('clients', async (entry, at) => {
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      const redirectUris = names(entry, 'redirect_uris', at);
      const { client } = await admin.clients.addClient({
        display_name: text(entry, 'name', at)!,
        redirect_uris: redirectUris,
        public_client: entry.confidential !== true,
        resource_server: text(entry, 'resource_server', at, false) ?? null,
        secret: text(entry, 'secret', at, false),
        secret_hash: text(entry, 'secret_hash', at, false),
      });
      clients.set(client.display_name, client.id);
      clients.set(client.id, client.id);
    });
    await each('identities', async (entry, at) => {
      if (!ofClient(entry)) return;
      const clientId = (entry.username as string).split('@')[0];
      const client = await services.authorizationServer.registry.client(clientId);
      if (!client) throw new SeedError(`${at('username')}: the identity of client '${clientId}', which is not among the seed's clients`);
      if (entry.id !== undefined && String(entry.id).toLowerCase() !== client.id) throw new SeedError(`${at('id')}: a client's identity has the client's id, ${client.id}`);
      await services.authorizationServer.clientCredentials.clientIdentity(client);
    });
    await each('identities', async (entry, at) => {
      for (const other of names(entry, 'linked', at)) await admin.identities.linkIdentities(entry.username as string, other);
    });
    await each('groups', async (entry, at) => {
      const name = text(entry, 'name', at)!;
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      await admin.identities.addGroup(name);
      for (const member of names(entry, 'members', at)) await admin.identities.addGroupMember(name, member);
    });
    await each('subscriptions', async (entry, at) => {
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      await admin.subscriptions.addSubscription(text(entry, 'name', at)!, names(entry, 'members', at), names(entry, 'admins', at));
    });
    await each('tokens', async (entry, at) => {
      const scopes = names(entry, 'scopes', at);
      const identity = text(entry, 'identity', at, false);
      const client = text(entry, 'client', at, false);
      if ((identity === undefined) === (client === undefined)) throw new SeedError(`${at('identity')}: give either identity (a username) or client (a client's name or id)`);
      let username = identity;
      if (client !== undefined) {
        const clientId = clients.get(client) ?? client;
        const state = await services.authorizationServer.registry.client(clientId);
        if (!state) throw new SeedError(`${at('client')}: no client '${client}' in the seed`);
        username = (await services.authorizationServer.clientCredentials.clientIdentity(state)).username;
      }
      const expiresIn = entry.expires_in;
      if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn) || expiresIn <= 0)) throw new SeedError(`${at('expires_in')}: a number of seconds`);
      const valueHash = text(entry, 'value_hash', at, false);
      if (valueHash !== undefined) {
        const expiresAt = text(entry, 'expires_at', at, false);
        const at2 = expiresAt === undefined ? null : new Date(expiresAt);
        if (at2 !== null && Number.isNaN(at2.getTime())) throw new SeedError(`${at('expires_at')}: an ISO date and time`);
        await admin.tokens.importToken(username!, { token_hash: valueHash, scopes: scopes.length > 0 ? scopes : ['urn:globus:auth:scope:transfer.api.globus.org:all'], expires_at: at2 });
        return;
      }
      await admin.tokens.issueToken(username!, (expiresIn as number | undefined) ?? null, scopes.length > 0 ? scopes.join(' ') : undefined, text(entry, 'value', at, false));
    });
    // `nodes` is where a seed that declaresNodes runs them (null for any other seed)
    if (nodes) await each('nodes', async (entry, at) => {
      const port = entry.port ?? 0;
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) throw new SeedError(`${at('port')}: a port from 0 (a free one) to 65535`);
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      const owner = text(entry, 'owner', at, false);
      const { node, secret } = await admin.nodes.addNode({ name: text(entry, 'name', at)!, url: await nodes.urlFor(port), ...(owner !== undefined && { owner }) });
      nodes.added(node, secret);
    });
    // looked up once per owner: what follows creates endpoints, not identities or memberships
    const owners = new Map<string, Principal>();
    const ownerOf = async (entry: Entry, at: (field: string) => string): Promise<Principal> => {
      const owner = text(entry, 'owner', at)!;
      const known = owners.get(owner.toLowerCase());
      if (known) return known;
      const identity = await services.authentication.identityByUsername(owner);
      if (!identity) throw new SeedError(`${at('owner')}: no identity '${owner}' in the seed`);
      const principal = await services.authentication.principalOf(identity.id);
      owners.set(owner.toLowerCase(), principal);
      return principal;
    };
    const principalId = async (name: string, at: string): Promise<string> => {
      const identity = await services.authentication.identityByUsername(name);
      if (identity) return identity.id;
      const group = (await admin.identities.listGroups()).find((g) => g.name === name);
      if (group) return group.id;
      throw new SeedError(`${at}: no identity or group '${name}' in the seed`);
    };
    await each('endpoints', async (entry, at) => {
      const owner = await ownerOf(entry, at);
      const fields = Object.fromEntries(Object.entries(entry).filter(([key]) => !ENDPOINT_KEYS.includes(key)));
      const servers = entry.servers;
      if (servers !== undefined && !Array.isArray(servers)) throw new SeedError(`${at('servers')}: a list of server documents`);
      const command = await decodeCreateEndpoint({ ...fields, ...(servers !== undefined && { DATA: servers }) }, owner.primary.username);
      const id = text(entry, 'id', at, false);
      if (id !== undefined) nextId(id.toLowerCase());
      const { id: endpointId } = await services.endpoints.createEndpoint(owner, command);
      if (entry.storage !== undefined) await attachStorage(services, storages, endpointId, entry.storage, at('storage'));
      const roles = entry.roles ?? [];
      if (!Array.isArray(roles)) throw new SeedError(`${at('roles')}: a list of {principal, role}`);
      for (const [i, role] of (roles as Entry[]).entries()) {
        if (typeof role?.principal !== 'string' || typeof role.role !== 'string') throw new SeedError(`${at(`roles[${i}]`)}: {principal: a username or group name, role}`);
        await admin.endpoints.grantRole(endpointId, role.role, role.principal);
      }
      const shares = entry.shares ?? [];
      if (!Array.isArray(shares)) throw new SeedError(`${at('shares')}: a list of shared endpoints`);
      for (const [i, share] of (shares as Entry[]).entries()) {
        const { access, id: shareId, owner: shareOwnerName, ...shareFields } = share;
        // a share's own owner (an administrator of the host), else the host's
        const shareOwner = typeof shareOwnerName === 'string' ? await ownerOf({ owner: shareOwnerName }, (field) => at(`shares[${i}].${field}`)) : owner;
        if (typeof shareId === 'string') nextId(shareId.toLowerCase());
        const made = await services.endpoints.createSharedEndpoint(shareOwner, await decodeCreateSharedEndpoint({ ...shareFields, host_endpoint: endpointId }));
        for (const [j, rule] of ((access ?? []) as Entry[]).entries()) {
          const where = at(`shares[${i}].access[${j}]`);
          const type = rule.principal_type;
          const principal = (type === 'identity' || type === 'group') && typeof rule.principal === 'string' ? await principalId(rule.principal, where) : (rule.principal ?? '');
          try {
            // the API's decoder checks each field's type, as for a POST of the rule
            await services.accessRules.add(shareOwner, made.id, await decodeNewAccessRule({ ...rule, principal }));
          } catch (error) {
            throw error instanceof DomainError ? new SeedError(`${where}: ${error.message}`) : error;
          }
        }
      }
    });
    await each('pause_rules', async (entry, at) => {
      await admin.endpoints.addPauseRule(text(entry, 'endpoint', at)!, { message: text(entry, 'message', at)!, identity: text(entry, 'identity', at, false) ?? null });
    });
    const failed = (await Promise.all(passwords)).find((error) => error !== null);
    if (failed) throw failed;
    return count;
  }
}

/** What a node storage's entry may say of its storage gateway, as `xfer endpoint storage set` does. */
const GATEWAY_POLICY_KEYS = ['identity_mappings', 'restrict_paths', 'users_allow', 'users_deny', 'groups_allow', 'groups_deny'] as const;

/**
 * An endpoint's `storage` key: {"type": "posix", "root": "<absolute directory>"}, {"type": "node", "node": "<id or name>", "root": "<directory on the node>"} (with its gateway's GATEWAY_POLICY_KEYS), or {"type":
 * "memory", "files": {"/path/file.txt": "utf-8 content", "/path/empty-dir/": null}} (files optional).
 */
async function attachStorage(services: CoreServices, storages: EndpointStorages, endpointId: string, storage: unknown, at: string): Promise<void> {
  const value = storage as Entry | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SeedError(`${at}: {"type": "posix", "root": ...} or {"type": "memory", "files": {...}}`);
  const unknown = Object.keys(value).filter((key) => !(value.type === 'posix' ? ['type', 'root'] : value.type === 'node' ? ['type', 'node', 'root', ...GATEWAY_POLICY_KEYS] : ['type', 'files']).includes(key));
  if (unknown.length > 0) throw new SeedError(`${at}: unknown field '${unknown[0]}' for type '${String(value.type)}'`);
  if (value.type === 'posix') {
    if (typeof value.root !== 'string' || !value.root.startsWith('/')) throw new SeedError(`${at}.root: the absolute directory of this host to serve`);
    if (!statSync(value.root, { throwIfNoEntry: false })?.isDirectory()) throw new SeedError(`${at}.root: '${value.root}' is not a directory of this host`);
    await services.admin.endpoints.setStorage(endpointId, { type: 'posix', root: value.root });
  } else if (value.type === 'node') {
    if (typeof value.node !== 'string' || typeof value.root !== 'string' || !value.root.startsWith('/')) throw new SeedError(`${at}: {"type": "node", "node": "<node id or name>", "root": "<absolute directory on the node>"}`);
    // the storage gateway's mapping and policies, as `storage set` takes them (checked whole by core)
    const policies = Object.fromEntries(GATEWAY_POLICY_KEYS.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]));
    for (const key of ['users_allow', 'users_deny', 'groups_allow', 'groups_deny'] as const) {
      if (policies[key] !== undefined && !(Array.isArray(policies[key]) && (policies[key] as unknown[]).every((name) => typeof name === 'string'))) throw new SeedError(`${at}.${key}: a list of names`);
    }
    try {
      await services.admin.endpoints.setStorage(endpointId, { type: 'node', node: value.node, root: value.root }, policies);
    } catch (error) {
      throw error instanceof DomainError ? new SeedError(`${at}: ${error.message}`) : error;
    }
  } else if (value.type === 'memory') {
    let files: MemoryFiles;
    try {
      files = checkMemoryFiles(value.files ?? {}, `${at}.files`);
    } catch (error) {
      throw error instanceof DomainError ? new SeedError(error.message) : error;
    }
    await services.admin.endpoints.setStorage(endpointId, { type: 'memory' });
    storages.treeOf(endpointId).replace(files);
  } else {
    throw new SeedError(`${at}.type: 'posix', 'node' or 'memory'`);
  }
}
