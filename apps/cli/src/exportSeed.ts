import { constants, closeSync, fchmodSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { CLI_TEMPLATE_CLIENT, CONSOLE_CLIENT, isClientUsername, isTokenUsable, STANDARD_CLIENTS, type CoreServices, type Endpoint, type Repositories } from '@xfer/core';
import { ConfigError } from '@xfer/config';
import type { EndpointStorages } from '@xfer/runtime';

type Entry = Record<string, unknown>;

/** The settable fields of an endpoint that a seed carries when they differ from a new endpoint's. */
const TEXT_FIELDS = [
  'display_name', 'organization', 'department', 'keywords', 'description', 'contact_email', 'contact_info', 'info_link',
  'default_directory', 'myproxy_server', 'myproxy_dn', 'oauth_server', 'https_server',
] as const;
const SERVER_FIELDS = ['hostname', 'port', 'scheme', 'subject', 'incoming_data_port_start', 'incoming_data_port_end', 'outgoing_data_port_start', 'outgoing_data_port_end'] as const;

/** Drops the keys whose value is null or undefined: a seed says only what it sets. */
const compact = (entry: Entry): Entry => Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== null && v !== undefined));

/**
 * An endpoint's storage as a seed writes it: a posix root, or a memory tree with its files when
 * this process holds them (the stand-in; its endpoints without storage have a tree too, written
 * when it holds something). `xfer export` holds no server's trees: memory without files.
 */
async function storageEntry(endpoint: Endpoint, storages: EndpointStorages | undefined, gateways: Repositories['storageGateways']): Promise<Entry | null> {
  const attached = endpoint.snapshot.storage;
  if (attached?.type === 'posix') return { type: 'posix', root: attached.root };
  if (attached?.type === 'node') {
    // the gateway's mapping and policies, where set: a seed loads them back through `storage set`
    const gateway = endpoint.collection === null ? null : await gateways.findById(endpoint.collection.storage_gateway_id);
    const g = gateway?.settings;
    const some = (values: readonly string[] | undefined) => (values && values.length > 0 ? values : undefined);
    return compact({
      type: 'node',
      node: attached.node,
      root: attached.root,
      identity_mappings: g && g.identity_mappings.length > 0 ? g.identity_mappings : undefined,
      restrict_paths: g?.restrict_paths,
      users_allow: some(g?.users_allow),
      users_deny: some(g?.users_deny),
      groups_allow: some(g?.policies.groups_allow),
      groups_deny: some(g?.policies.groups_deny),
    });
  }
  const files = storages?.hasTree(endpoint.id) ? storages.treeOf(endpoint.id).files() : null;
  if (attached?.type === 'memory') return files ? { type: 'memory', files } : { type: 'memory' };
  return files && Object.keys(files).length > 0 ? { type: 'memory', files } : null;
}

/**
 * The state of a database in the seed format (`xfer export`, `serve --export-on-exit`): what a
 * seed can hold, secrets as their stored hashes, so that loading the export and exporting again
 * gives the same file. The standard catalogue is left out: every database installs it.
 */
export async function exportSeed(services: CoreServices, repositories: Repositories, storages?: EndpointStorages): Promise<Record<string, Entry[]>> {
  const { admin } = services;
  const identities = await admin.identities.listIdentities();
  const username = new Map(identities.map((i) => [i.id, i.username]));
  const groups = await admin.identities.listGroups();
  const principalName = (id: string) => username.get(id) ?? groups.find((g) => g.id === id)?.name ?? id;
  const seed: Record<string, Entry[]> = { identities: [], groups: [], subscriptions: [], clients: [], tokens: [], nodes: [], endpoints: [], pause_rules: [] };

  for (const identity of identities) {
    const linked = identities.filter((i) => i.set_id === identity.id && i.id !== identity.id).map((i) => i.username);
    // a client's own identity: made again by its client when the seed is loaded, with the client's id
    seed.identities.push(compact({ id: isClientUsername(identity.username) ? null : identity.id, username: identity.username, name: identity.name, email: identity.email, organization: identity.organization, password_hash: identity.password_hash, linked: linked.length > 0 ? linked : null }));
  }
  for (const group of groups) seed.groups.push({ id: group.id, name: group.name, members: group.members });
  for (const subscription of await admin.subscriptions.listSubscriptions()) {
    seed.subscriptions.push({ id: subscription.id, name: subscription.name, members: subscription.member_ids.map(principalName), admins: subscription.administrator_ids.map(principalName) });
  }
  // a node as a stand-in runs it: on its port of this machine (its secret is made anew)
  for (const node of await admin.nodes.listNodes()) seed.nodes.push({ id: node.id, name: node.name, port: Number(new URL(node.url).port || 443) });
  // the console registers itself at every start, with its own address and secret
  const standardClients: readonly string[] = [...STANDARD_CLIENTS.map((c) => c.id), CONSOLE_CLIENT.id];
  for (const client of await admin.clients.listClients()) {
    // clients made by a CLI's login are sessions, not configuration
    if (standardClients.includes(client.id) || client.template_id === CLI_TEMPLATE_CLIENT.id) continue;
    seed.clients.push(compact({ id: client.id, name: client.display_name, redirect_uris: client.redirect_uris, confidential: !client.public_client || null, resource_server: client.resource_server, secret_hash: client.secret_hash }));
  }
  const now = new Date();
  for (const identity of identities) {
    for (const token of await repositories.accessTokens.listForIdentity(identity.id)) {
      // operator and seed tokens; what OAuth issued belongs to its sign-in
      if (token.client_id !== null || !isTokenUsable(token, now)) continue;
      seed.tokens.push(compact({ identity: identity.username, value_hash: token.token_hash, scopes: token.scopes, expires_at: token.expires_at?.toISOString() }));
    }
  }

  const owned: Endpoint[] = [];
  for (const identity of identities) {
    const hits = await repositories.endpoints.search({ terms: [], visibleTo: { principalIds: [identity.id], roles: ['administrator'] }, ownedBy: [identity.id], offset: 0, limit: 1_000_000 });
    owned.push(...hits.map((h) => h.endpoint).filter((e) => e.ownerId === identity.id));
  }
  const byCreation = (a: Endpoint, b: Endpoint) => a.snapshot.created_at.getTime() - b.snapshot.created_at.getTime() || (a.id < b.id ? -1 : 1);
  owned.sort(byCreation);
  const fields = (endpoint: Endpoint): Entry => {
    const s = endpoint.snapshot;
    const entry: Entry = { id: s.id, owner: username.get(s.owner_id) };
    for (const field of TEXT_FIELDS) entry[field] = s[field];
    if (s.name !== s.id) entry.name = s.name;
    if (s.force_encryption) entry.force_encryption = true;
    if (s.disable_verify) entry.disable_verify = true;
    return entry;
  };
  const roles = async (endpoint: Endpoint) =>
    (await admin.endpoints.listRoles(endpoint.id)).filter((r) => !(r.role === 'administrator' && r.principal === username.get(endpoint.ownerId))).map((r) => ({ principal: r.principal, role: r.role }));
  for (const endpoint of owned.filter((e) => e.kind === 'server' || e.kind === 'personal')) {
    const s = endpoint.snapshot;
    const entry = fields(endpoint);
    if (endpoint.kind === 'personal') entry.is_globus_connect = true;
    entry.public = s.public;
    entry.subscription_id = s.subscription_id;
    if (s.location !== null && s.location !== 'Automatic') entry.location = s.location;
    if (s.subscription_id !== null && s.network_use !== null && s.network_use !== 'normal') {
      entry.network_use = s.network_use;
      if (s.custom_network) Object.assign(entry, s.custom_network);
    }
    if (endpoint.kind === 'server') entry.servers = s.servers.map((server) => compact(Object.fromEntries(SERVER_FIELDS.map((f) => [f, server[f]]))));
    const storage = await storageEntry(endpoint, storages, repositories.storageGateways);
    if (storage) entry.storage = storage;
    const granted = await roles(endpoint);
    if (granted.length > 0) entry.roles = granted;
    const shares: Entry[] = [];
    for (const share of owned.filter((e) => e.kind === 'shared' && e.hostEndpointId === endpoint.id)) {
      const shareEntry = fields(share);
      shareEntry.host_path = share.snapshot.host_path;
      const rules = (await repositories.accessRules.listForEndpoint(share.id)).map((rule) =>
        compact({
          principal_type: rule.principal_type,
          principal: rule.principal === '' ? '' : principalName(rule.principal),
          path: rule.path,
          permissions: rule.permissions,
          notify_email: rule.notify_email,
          notify_message: rule.notify_message,
          expiration_date: rule.expiration_date?.toISOString(),
        }),
      );
      if (rules.length > 0) shareEntry.access = rules;
      shares.push(compact(shareEntry));
    }
    if (shares.length > 0) entry.shares = shares;
    seed.endpoints.push(compact(entry));
    for (const rule of await admin.endpoints.listPauseRules(endpoint.id)) {
      seed.pause_rules.push(compact({ endpoint: endpoint.id, message: rule.message, identity: rule.identity_id === null ? null : username.get(rule.identity_id) }));
    }
  }
  return Object.fromEntries(Object.entries(seed).filter(([, list]) => list.length > 0));
}

/**
 * Writes a seed (JSON, or YAML for .yaml/.yml) readable by its owner only: it holds the hashes of
 * passwords, tokens and secrets. A symbolic link at `file` is refused, never followed.
 */
export function writeSeedFile(file: string, seed: Record<string, Entry[]>): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- yaml only for YAML exports (the stand-in's start loads this file)
  const text = /\.ya?ml$/i.test(file) ? (require('yaml') as typeof import('yaml')).stringify(seed) : `${JSON.stringify(seed, null, 2)}\n`;
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new ConfigError(`${file} is a symbolic link: the export is written only to a file of its own`);
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
    ftruncateSync(fd, 0);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
