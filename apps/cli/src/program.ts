import 'reflect-metadata';
import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import {
  BadRequestError,
  bootstrapDemo,
  checkPassword,
  CONSOLE_CLIENT,
  DomainError,
  type CoreServices,
  type StorageAttachment,
} from '@xfer/core';
// the apps (Express and all), the runtime and the database load only in the commands that use them:
// the others start in half the time, and a data node (which opens no database) stays lean
import { ConfigError, DEFAULT_DATABASE_URL } from '@xfer/config';
import type { Runtime } from '@xfer/runtime';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { NodeServeArguments } from '@xfer/node';
import { seedProgress } from './seed';
import { exportSeed, writeSeedFile } from './exportSeed';

/** Exit code for bad arguments and refused operations. */
export const USAGE_ERROR = 2;

export interface Io {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** All of standard input (for --password-stdin). */
  readStdin(): Promise<string>;
  /** Where a progress bar may draw (a TTY), if anywhere. */
  progress?: NodeJS.WriteStream;
}

/** What a command hands back: its text for people and its value for `--json`. */
interface Output {
  text: string | string[];
  json: unknown;
}

const positiveInteger = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('must be a positive whole number');
  return Number(value);
};
const consentId = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a consent id (a number)');
  return Number(value);
};
const collect = (value: string, previous: string[]): string[] => [...previous, value];
const time = (d: Date | null | undefined) => (d ? d.toISOString() : '-');
const table = (rows: string[][]) => {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i].length))) ?? [];
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd());
};

/** A directory of this host as an absolute path (relative to the working directory when given so); it must exist. */
function existingDirectory(path: string): string {
  const absolute = resolvePath(path);
  if (!statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) throw new BadRequestError(`'${absolute}' is not a directory of this host`);
  return absolute;
}

/** A JSON file an option names, parsed; a missing or broken file refused naming the option. */
function jsonFile(path: string, option: string): unknown {
  let text: string;
  try {
    text = readFileSync(resolvePath(path), 'utf8');
  } catch (error) {
    throw new BadRequestError(`${option}: cannot read '${path}' (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BadRequestError(`${option}: '${path}' is not JSON (${(error as Error).message})`);
  }
}

function describeStorage(attachment: Awaited<ReturnType<CoreServices['admin']['endpoints']['storageOf']>>): string {
  if (attachment === null) return 'no storage';
  if (attachment.type === 'node') {
    const gateway = attachment.storage_gateway;
    const mapped = gateway === undefined ? '' : `, storage gateway ${gateway.id}${gateway.identity_mappings.length > 0 ? ` mapping identities by ${gateway.identity_mappings.length} document(s)` : ''}`;
    return `directory ${attachment.root} of node ${attachment.node}${mapped}`;
  }
  return attachment.type === 'posix' ? `posix directory ${attachment.root}` : 'a memory tree (held by the server process; empty when it starts)';
}

/** The first line of standard input, as `--password-stdin` takes it. */
async function passwordFromStdin(io: Io): Promise<string> {
  return checkPassword((await io.readStdin()).split(/\r?\n/)[0] ?? '');
}

/**
 * The `xfer` admin command. Each action opens the database (applying pending migrations), runs
 * use cases of the core in transactions, and closes it again.
 */
export function buildProgram(io: Io): Command {
  const program = new Command('xfer')
    .description('Administer an xfer service: identities, groups, clients, scopes, consents, tokens, roles, subscriptions, pause rules')
    .option('--database <url>', `database URL (env DATABASE_URL, default ${DEFAULT_DATABASE_URL})`)
    .option('--json', 'print JSON for scripts instead of text')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const databaseUrl = () => (program.opts().database as string | undefined) ?? io.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;

  /** A one-shot command's work on the process's runtime: opened, used, closed in `finally`. */
  async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>): Promise<T> {
    const [{ Runtime }, { helperPagesConfig, pagesCoreSettings }] = await Promise.all([import('@xfer/runtime'), import('@xfer/helper-pages/settings')]);
    // the auth app's settings too: the keys that sign id_tokens (xfer keys)
    return Runtime.run({ databaseUrl: databaseUrl(), core: pagesCoreSettings(helperPagesConfig(io.env)) }, work);
  }

  /** Runs a command's work and prints its output as text or JSON. */
  function run<A extends unknown[]>(work: (services: CoreServices, ...args: A) => Promise<Output>) {
    return async (...args: A) => {
      const output = await withRuntime((runtime) => work(runtime.services, ...args));
      if (program.opts().json) io.out(JSON.stringify(output.json, null, 2));
      else for (const line of ([] as string[]).concat(output.text)) io.out(line);
    };
  }

  // ---- identities ----
  const identity = program.command('identity').description('identities (users) of this service');
  identity
    .command('add <username>')
    .description('add an identity; prints its id')
    .option('--name <name>', 'full name')
    .option('--email <email>', 'e-mail address')
    .option('--organization <organization>', 'organization')
    .option('--password-stdin', 'read a sign-in password for the helper pages from standard input')
    .action(async (username: string, options: { name?: string; email?: string; organization?: string; passwordStdin?: boolean }) => {
      const { passwordStdin, ...fields } = options;
      const password = passwordStdin ? await passwordFromStdin(io) : null;
      await run(async (s) => {
        const created = await s.admin.identities.addIdentity({ username, ...fields });
        if (password !== null) await s.admin.identities.setPassword(username, password);
        return { text: created.id, json: { id: created.id, username: created.username } };
      })();
    });
  identity
    .command('set-password <username>')
    .description('set the sign-in password of an identity, read from standard input')
    .action(async (username: string) => {
      const password = await passwordFromStdin(io);
      await run(async (s) => {
        await s.admin.identities.setPassword(username, password);
        return { text: `password set for ${username}`, json: { username } };
      })();
    });
  identity
    .command('link <username> <other-username>')
    .description("link <other-username>'s identities into <username>'s identity set")
    .action(
      run(async (s, username: string, other: string) => {
        await s.admin.identities.linkIdentities(username, other);
        return { text: `linked ${other} to ${username}`, json: { username, linked: other } };
      }),
    );
  identity
    .command('unlink <username>')
    .description('take an identity out of its identity set')
    .action(
      run(async (s, username: string) => {
        await s.admin.identities.unlinkIdentity(username);
        return { text: `unlinked ${username}`, json: { username } };
      }),
    );
  identity
    .command('list')
    .description('list identities with their identity sets')
    .action(
      run(async (s) => {
        const all = await s.admin.identities.listIdentities();
        const primary = new Map(all.map((i) => [i.id, i.username]));
        const json = all.map((i) => ({ id: i.id, username: i.username, name: i.name, email: i.email, organization: i.organization, status: i.status, linked_to: i.set_id === i.id ? null : primary.get(i.set_id) ?? i.set_id, has_password: i.password_hash !== null }));
        return { text: table([['ID', 'USERNAME', 'NAME', 'LINKED TO'], ...json.map((i) => [i.id, i.username, i.name ?? '-', i.linked_to ?? '-'])]), json };
      }),
    );

  // ---- groups ----
  const group = program.command('group').description('groups of identities');
  group.command('add <name>').description('add a group; prints its id').action(
    run(async (s, name: string) => {
      const id = await s.admin.identities.addGroup(name);
      return { text: id, json: { id, name } };
    }),
  );
  group.command('add-member <group> <username>').description('add an identity to a group').action(
    run(async (s, name: string, username: string) => {
      await s.admin.identities.addGroupMember(name, username);
      return { text: `added ${username} to ${name}`, json: { group: name, username } };
    }),
  );
  group.command('remove-member <group> <username>').description('remove an identity from a group').action(
    run(async (s, name: string, username: string) => {
      await s.admin.identities.removeGroupMember(name, username);
      return { text: `removed ${username} from ${name}`, json: { group: name, username } };
    }),
  );
  group.command('list').description('list groups and their members').action(
    run(async (s) => {
      const groups = await s.admin.identities.listGroups();
      return { text: table([['ID', 'NAME', 'MEMBERS'], ...groups.map((g) => [g.id, g.name, g.members.join(',') || '-'])]), json: groups };
    }),
  );

  // ---- clients, scopes, consents ----
  const client = program.command('client').description('client applications that send users to the helper pages');
  client
    .command('add <display-name>')
    .description('register a client; prints its id (and, for a confidential client, its secret, once)')
    .option('--redirect-uri <uri>', 'a registered redirect URI (repeatable)', collect, [])
    .option('--logo-url <url>', 'https URL of a logo')
    .option('--primary-color <#rrggbb>', 'header and link colour')
    .option('--background-color <#rrggbb>', 'page background colour')
    .option('--confidential', 'a confidential client with a secret (default: public, which must use PKCE)')
    .option('--resource-server <name>', 'the resource server this (confidential) client runs: it may introspect tokens for it')
    .action(async (displayName: string, o: { redirectUri: string[]; logoUrl?: string; primaryColor?: string; backgroundColor?: string; confidential?: boolean; resourceServer?: string }) =>
      run(async (s) => {
        const { client: c, secret } = await s.admin.clients.addClient({
          display_name: displayName,
          redirect_uris: o.redirectUri,
          branding: { logo_url: o.logoUrl, primary_color: o.primaryColor, background_color: o.backgroundColor },
          public_client: !o.confidential,
          resource_server: o.resourceServer ?? null,
        });
        return { text: secret ? [c.id, `secret (shown once): ${secret}`] : c.id, json: { id: c.id, secret } };
      })(),
    );
  client.command('list').description('list clients').action(
    run(async (s) => {
      const clients = (await s.admin.clients.listClients()).map(({ secret_hash: _secret, ...c }) => c);
      return { text: table([['ID', 'NAME', 'TYPE', 'REDIRECT URIS'], ...clients.map((c) => [c.id, c.display_name, c.public_client ? 'public' : 'confidential', c.redirect_uris.join(' ') || '-'])]), json: clients };
    }),
  );

  client
    .command('remove <client-id>')
    .description('remove a client (the built-in CLI client too): its tokens are revoked')
    .action(
      run(async (s, id: string) => {
        await s.admin.clients.removeClient(id);
        return { text: `removed client ${id}`, json: { removed: id } };
      }),
    );

  // ---- data nodes ----
  const node = program.command('node').description("data nodes: storage on other machines, reached through the node that runs beside it");
  node
    .command('add <name>')
    .description('register a node (it need not be running yet), a Globus Connect Server endpoint; prints its id and its secret, once (only a hash is kept)')
    .requiredOption('--url <https-url>', "the node's HTTPS address (a path prefix allowed), where clients reach its collections' files and its GCS Manager API (/api/)")
    .option('--owner <username>', "who administers the node's GCS endpoint (a username or a group's name)")
    .action(async (name: string, o: { url: string; owner?: string }) =>
      run(async (s) => {
        const { node: added, secret } = await s.admin.nodes.addNode({ name, url: o.url, owner: o.owner });
        return { text: [added.id, `secret (shown once): ${secret}`], json: { id: added.id, secret } };
      })(),
    );
  node.command('list').description('list nodes with their last contact').action(
    run(async (s) => {
      const nodes = await s.admin.nodes.listNodes();
      return { text: table([['ID', 'NAME', 'URL', 'LAST CONTACT'], ...nodes.map((n) => [n.id, n.name, n.url, n.lastContact?.toISOString() ?? 'never'])]), json: nodes };
    }),
  );
  node
    .command('remove <node>')
    .description('remove a node, by id or name')
    .action(
      run(async (s, idOrName: string) => {
        const removed = await s.admin.nodes.removeNode(idOrName);
        return { text: `removed node ${removed.id} (${removed.name})`, json: { removed: removed.id } };
      }),
    );
  node
    .command('new-secret <node>')
    .description('give a node, by id or name, a new secret (the old one stops working); prints it, once')
    .action(
      run(async (s, idOrName: string) => {
        const { node: changed, secret } = await s.admin.nodes.newSecret(idOrName);
        return { text: [changed.id, `secret (shown once): ${secret}`], json: { id: changed.id, secret } };
      }),
    );

  node
    .command('serve')
    .description("run this machine's data node: serves the directories the API's endpoints are bound to, over HTTPS; prints its URL once it answers (it never opens the API's database)")
    .option('--api <url>', 'where the API answers (env XFER_NODE_API)')
    .option('--auth <url>', 'where the authorization service answers (env XFER_NODE_AUTH)')
    .option('--id <node-id>', "the node's id, from xfer node add (env XFER_NODE_ID)")
    .option('--secret-file <file>', "a file holding the node's secret (env XFER_NODE_SECRET_FILE)")
    .option('--port <n>', "the port to listen on (env XFER_NODE_PORT; default: its URL's)")
    .option('--tls-cert <pem>', "the node's certificate, PEM (env XFER_NODE_TLS_CERT)")
    .option('--tls-key <pem>', "the node's private key, PEM (env XFER_NODE_TLS_KEY)")
    .action(async (options: NodeServeArguments) => {
      const { NodeServer, nodeServeSettings } = await import('@xfer/node');
      const settings = nodeServeSettings(options, io.env);
      const server = await NodeServer.start(settings);
      io.err(`xfer node ${server.identity.name} (${server.identity.id}) serves ${server.url} for the API at ${settings.apiUrl}; stops on SIGTERM or SIGINT`);
      io.out(server.url);
      await new Promise<void>((resolve) => {
        const stop = () => void server.close().then(resolve, resolve);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });

  const scope = program.command('scope').description('scopes clients ask users to consent to');
  scope
    .command('add <name>')
    .description('add a scope; prints its id')
    .requiredOption('--description <text>', 'what the scope allows, in words users understand')
    .option('--depends-on <scope-name>', 'a scope (added before) the client may use downstream with this one (repeatable)', collect, [])
    .option('--resource-server <name>', 'the service its tokens are for (default: from the name, e.g. transfer.api.globus.org)')
    .action(async (name: string, o: { description: string; dependsOn: string[]; resourceServer?: string }) =>
      run(async (s) => {
        const id = await s.admin.clients.addScope(name, o.description, { dependsOn: o.dependsOn, resourceServer: o.resourceServer });
        return { text: id, json: { id, name } };
      })(),
    );
  scope.command('list').description('list scopes').action(
    run(async (s) => {
      const scopes = await s.admin.clients.listScopes();
      return {
        text: table([['ID', 'NAME', 'RESOURCE SERVER', 'DESCRIPTION'], ...scopes.map((x) => [x.id, x.name, x.resource_server, x.description])]),
        json: scopes,
      };
    }),
  );

  const consent = program.command('consent').description("users' consents to clients");
  consent
    .command('grant <username> <client-id> <scope-name>')
    .description('record a consent; prints its id')
    .option('--parent <consent-id>', 'the consent this one depends on', consentId)
    .action(async (username: string, clientId: string, scopeName: string, o: { parent?: number }) =>
      run(async (s) => {
        const id = await s.admin.tokens.grantConsent(username, clientId, scopeName, o.parent ?? null);
        return { text: String(id), json: { id } };
      })(),
    );
  consent.command('revoke <consent-id>').description('revoke a consent and those that depend on it').action(async (id: string) =>
    run(async (s) => {
      await s.admin.tokens.revokeConsent(consentId(id));
      return { text: `revoked consent ${id}`, json: { id: Number(id) } };
    })(),
  );
  consent.command('list <username>').description("list an identity's consents").action(
    run(async (s, username: string) => {
      const consents = await s.admin.tokens.listConsents(username);
      const rows = consents.map((c) => [String(c.id), c.client_name ?? c.client_id, c.scope_name ?? c.scope_id, c.dependency_path.join('/'), c.status]);
      return { text: table([['ID', 'CLIENT', 'SCOPE', 'PATH', 'STATUS'], ...rows]), json: consents };
    }),
  );

  // ---- tokens ----
  const token = program.command('token').description('access tokens for the API');
  token
    .command('issue <username>')
    .description('issue a new access token; prints it (only its hash is stored)')
    .option('--expires-in <seconds>', 'lifetime in seconds (default: no expiry)', positiveInteger)
    .option('--scope <names>', 'the scopes it carries, space-separated, all of one resource server (default: the transfer API scope)')
    .action(async (username: string, o: { expiresIn?: number; scope?: string }) =>
      run(async (s) => {
        const issued = await s.admin.tokens.issueToken(username, o.expiresIn ?? null, o.scope);
        return { text: issued.token, json: issued };
      })(),
    );
  token.command('list <username>').description('list the tokens of an identity (ids only, never the secrets)').action(
    run(async (s, username: string) => {
      const tokens = await s.admin.tokens.listTokens(username);
      return { text: table([['ID', 'CREATED', 'EXPIRES', 'REVOKED'], ...tokens.map((t) => [t.id, time(t.created_at), time(t.expires_at), time(t.revoked_at)])]), json: tokens };
    }),
  );
  token.command('revoke <token-or-id>').description('revoke a token at once, by its id from `token list` or the token itself').action(
    run(async (s, value: string) => {
      const id = await s.admin.tokens.revokeToken(value);
      return { text: `revoked token ${id}`, json: { id } };
    }),
  );

  // ---- subscriptions ----
  const subscription = program.command('subscription').description('subscriptions that make endpoints managed');
  subscription
    .command('add <name>')
    .description('add a subscription; prints its id')
    .option('--member <username|group>', 'an identity or group that may use it (repeatable)', collect, [])
    .option('--admin <username|group>', 'an identity or group that administers it: verifies its endpoints (repeatable)', collect, [])
    .action(async (name: string, o: { member: string[]; admin: string[] }) =>
      run(async (s) => {
        const id = await s.admin.subscriptions.addSubscription(name, o.member, o.admin);
        return { text: id, json: { id, name } };
      })(),
    );
  subscription.command('add-member <subscription> <username|group>').description('let an identity or group use a subscription').action(
    run(async (s, name: string, member: string) => {
      await s.admin.subscriptions.addSubscriptionMember(name, member);
      return { text: `added ${member} to ${name}`, json: { subscription: name, member } };
    }),
  );
  subscription.command('add-admin <subscription> <username|group>').description('let an identity or group administer a subscription (verify its endpoints)').action(
    run(async (s, name: string, administrator: string) => {
      await s.admin.subscriptions.addSubscriptionAdministrator(name, administrator);
      return { text: `${administrator} administers ${name}`, json: { subscription: name, administrator } };
    }),
  );
  subscription.command('list').description('list subscriptions').action(
    run(async (s) => {
      const subs = await s.admin.subscriptions.listSubscriptions();
      return { text: table([['ID', 'NAME', 'MEMBERS'], ...subs.map((x) => [x.id, x.name, String(x.member_ids.length)])]), json: subs };
    }),
  );

  // ---- roles ----
  const role = program.command('role').description('endpoint roles');
  role
    .command('grant <endpoint-id> <role> <username|group>')
    .description('grant administrator, activity_manager, activity_monitor or access_manager; prints the assignment id')
    .action(
      run(async (s, endpointId: string, name: string, principal: string) => {
        const id = await s.admin.endpoints.grantRole(endpointId, name, principal);
        return { text: id, json: { id } };
      }),
    );
  role.command('revoke <assignment-id>').description('remove a role assignment').action(
    run(async (s, id: string) => {
      await s.admin.endpoints.revokeRole(id);
      return { text: `revoked ${id}`, json: { id } };
    }),
  );
  role.command('list <endpoint-id>').description('list the role assignments of an endpoint').action(
    run(async (s, endpointId: string) => {
      const roles = await s.admin.endpoints.listRoles(endpointId);
      return { text: table([['ID', 'ROLE', 'TYPE', 'PRINCIPAL'], ...roles.map((r) => [r.id, r.role, r.principal_type, r.principal])]), json: roles };
    }),
  );

  // ---- storage behind endpoints ----
  const endpoint = program.command('endpoint').description('endpoints, as the operator sees them');
  const storage = endpoint.command('storage').description('the storage behind a server or personal endpoint (its shares see it from their host_path)');
  storage
    .command('set <endpoint-id>')
    .description('attach a directory of this host (--posix), of a data node (--node with --posix), or a tree in memory (--memory: empty at start, lost when the server stops)')
    .option('--posix <directory>', 'an existing directory on this host (with --node: an absolute directory on the node)')
    .option('--node <node>', 'a data node, by id or name: the endpoint is served there, and its https_server names the node')
    .option('--memory', 'a tree held in the server process')
    .option('--identity-mapping <file.json>', "with --node: the storage gateway's identity mappings, a JSON list of expression_identity_mapping#1.0.0 documents ([] clears them)")
    .option('--restrict-paths <file.json>', 'with --node: a path_restrictions#1.0.0 document (read, read_write, none)')
    .option('--users-allow <account>', 'with --node: a local account allowed (repeatable)', collect, [])
    .option('--users-deny <account>', 'with --node: a local account denied (repeatable)', collect, [])
    .option('--groups-allow <group>', 'with --node: a local group allowed (repeatable)', collect, [])
    .option('--groups-deny <group>', 'with --node: a local group denied (repeatable)', collect, [])
    .action(async (endpointId: string, o: { posix?: string; node?: string; memory?: boolean; identityMapping?: string; restrictPaths?: string; usersAllow: string[]; usersDeny: string[]; groupsAllow: string[]; groupsDeny: string[] }) =>
      run(async (s) => {
        if ((o.posix === undefined) === !o.memory) throw new BadRequestError('give one of --posix <directory> or --memory');
        if (o.node !== undefined && o.posix === undefined) throw new BadRequestError('give --posix <directory on the node> with --node');
        const asked: StorageAttachment = o.node !== undefined ? { type: 'node', node: o.node, root: o.posix! } : o.posix !== undefined ? { type: 'posix', root: existingDirectory(o.posix) } : { type: 'memory' };
        const listed = (values: string[]) => (values.length > 0 ? values : undefined);
        const policies = {
          identity_mappings: o.identityMapping === undefined ? undefined : jsonFile(o.identityMapping, '--identity-mapping'),
          restrict_paths: o.restrictPaths === undefined ? undefined : jsonFile(o.restrictPaths, '--restrict-paths'),
          users_allow: listed(o.usersAllow),
          users_deny: listed(o.usersDeny),
          groups_allow: listed(o.groupsAllow),
          groups_deny: listed(o.groupsDeny),
        };
        await s.admin.endpoints.setStorage(endpointId, asked, policies);
        const attachment = await s.admin.endpoints.storageOf(endpointId);
        return { text: `${endpointId}: ${describeStorage(attachment)}`, json: attachment };
      })(),
    );
  storage.command('show <endpoint-id>').description('show the storage attached to an endpoint').action(
    run(async (s, endpointId: string) => {
      const attachment = await s.admin.endpoints.storageOf(endpointId);
      return { text: `${endpointId}: ${describeStorage(attachment)}`, json: attachment };
    }),
  );
  storage.command('remove <endpoint-id>').description('detach the storage (the files stay where they are)').action(
    run(async (s, endpointId: string) => {
      await s.admin.endpoints.setStorage(endpointId, null);
      return { text: `${endpointId}: no storage`, json: null };
    }),
  );

  // ---- pause rules ----
  const pause = program.command('pause-rule').description('pause rules of endpoints');
  pause
    .command('add <endpoint-id>')
    .description('pause every activity on an endpoint, for everyone or one identity; prints the rule id')
    .requiredOption('--message <text>', 'message shown to affected users')
    .option('--identity <username>', 'only this identity (default: everyone)')
    .action(async (endpointId: string, o: { message: string; identity?: string }) =>
      run(async (s) => {
        const id = await s.admin.endpoints.addPauseRule(endpointId, o);
        return { text: id, json: { id } };
      })(),
    );
  pause.command('list <endpoint-id>').description('list the pause rules of an endpoint').action(
    run(async (s, endpointId: string) => {
      const rules = await s.admin.endpoints.listPauseRules(endpointId);
      return { text: table([['ID', 'FOR', 'MESSAGE'], ...rules.map((r) => [r.id, r.identity_id ?? 'everyone', r.message])]), json: rules };
    }),
  );
  pause.command('remove <rule-id>').description('remove a pause rule').action(
    run(async (s, id: string) => {
      await s.admin.endpoints.removePauseRule(id);
      return { text: `removed ${id}`, json: { id } };
    }),
  );

  // ---- access rules (made through the API) ----
  const access = program.command('access').description('access rules of shared endpoints (created through the API)');
  access.command('list <endpoint-id>').description("list a share's explicit access rules").action(
    run(async (s, endpointId: string) => {
      const rules = await s.admin.endpoints.listAccessRules(endpointId);
      const rows = rules.map((r) => [r.id, r.principal_type, r.principal || '-', r.path, r.permissions, r.expiration_date?.toISOString() ?? '-']);
      return { text: table([['ID', 'PRINCIPAL TYPE', 'PRINCIPAL', 'PATH', 'PERMISSIONS', 'EXPIRES'], ...rows]), json: rules };
    }),
  );

  // ---- id_token signing keys ----
  const keys = program.command('keys').description('the keys that sign id_tokens (OpenID Connect), published at /jwk.json');
  keys.command('rotate').description('a new key signs from now on; old keys stay published until what they signed has expired').action(
    run(async (s) => {
      const rotated = await s.idTokens.rotate();
      return { text: [`signing with ${rotated.kid}`, ...rotated.retired.map((k) => `retired ${k} (still published)`), ...rotated.deleted.map((k) => `deleted ${k}`)], json: rotated };
    }),
  );
  keys.command('list').description('list the published keys, the signing one first').action(
    run(async (s) => {
      const signing = await s.idTokens.signingKey();
      const { keys: published } = await s.idTokens.jwks();
      const rows = published.map((k) => [String(k.kid), String(k.alg), k.kid === signing.kid ? 'signing' : 'retired']).sort((a, b) => (a[2] === 'signing' ? -1 : b[2] === 'signing' ? 1 : 0));
      return { text: table([['KID', 'ALG', 'STATE'], ...rows]), json: rows.map(([kid, alg, state]) => ({ kid, alg, state })) };
    }),
  );

  // ---- maintenance ----
  const maintenance = program.command('maintenance').description('maintenance mode: the API answers 503 ServiceUnavailable with Retry-After');
  maintenance
    .command('on')
    .description('switch maintenance mode on (every instance follows within a second)')
    .option('--message <text>', 'message shown to clients')
    .option('--retry-after <seconds>', 'Retry-After in seconds (default 300)', positiveInteger)
    .action(async (o: { message?: string; retryAfter?: number }) =>
      run(async (s) => {
        const m = await s.admin.maintenance.set(true, { message: o.message, retryAfterSeconds: o.retryAfter });
        return { text: `maintenance mode on: ${m!.message}`, json: m };
      })(),
    );
  maintenance.command('off').description('switch maintenance mode off').action(
    run(async (s) => {
      await s.admin.maintenance.set(false);
      return { text: 'maintenance mode off', json: null };
    }),
  );
  maintenance.command('status').description('show whether maintenance mode is on').action(
    run(async (s) => {
      const m = await s.admin.maintenance.current();
      return { text: m ? `on since ${time(m.since)}: ${m.message} (Retry-After ${m.retry_after_seconds}s)` : 'off', json: m };
    }),
  );

  // ---- database ----
  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const { Runtime } = await import('@xfer/runtime');
      await Runtime.run({ databaseUrl: databaseUrl(), migrate: false }, async (runtime) => {
        const names = await runtime.migrate();
        // the hosted service's standard scopes and the CLI's client, once per database
        const { admin } = runtime.services;
        const installed = await admin.clients.installStandardCatalogue();
        // the web console's client at its configured address; without a configured secret only when
        // missing: a new random one would lock out a console running now (its start sets its own)
        const { consoleConfig, registerConsoleClient } = await import('@xfer/console');
        const consoleSettings = consoleConfig(io.env);
        const registered = (await admin.clients.listClients()).some((c) => c.id === CONSOLE_CLIENT.id);
        if (consoleSettings.clientSecret || !registered) await registerConsoleClient(admin, consoleSettings.publicUrl, consoleSettings.clientSecret);
        if (program.opts().json) io.out(JSON.stringify({ applied: names, installed }));
        else {
          const lines = names.map((n) => `applied ${n}`);
          if (installed.scopes.length + installed.clients.length > 0) lines.push(`installed the standard catalogue: ${installed.scopes.length} scopes, ${installed.clients.length} client(s)`);
          io.out(lines.length === 0 ? 'database is up to date' : lines.join('\n'));
        }
      });
    });

  program
    .command('seed')
    .description('fill the database with realistic data for benchmarks')
    .requiredOption('--endpoints <count>', 'number of endpoints to create', positiveInteger)
    .option('--shares-per-host <count>', 'shares on the first host endpoint', positiveInteger)
    .action(async (o: { endpoints: number; sharesPerHost?: number }) => {
      const result = await withRuntime((runtime) => seedProgress(io.progress, o.endpoints, (onProgress) => runtime.seedForBenchmarks({ endpoints: o.endpoints, sharesOnFirstHost: o.sharesPerHost ?? 0, onProgress })));
      if (program.opts().json) io.out(JSON.stringify(result, null, 2));
      else io.out(`seeded ${result.endpoints} endpoints (${result.shares} shares) for ${result.owners} owners; token of ${result.username}: ${result.token}`);
    });

  // ---- serving ----
  program
    .command('export <file>')
    .description('write the database\'s state in the seed format of serve --ephemeral (JSON, or YAML for .yaml/.yml)')
    .action(async (file: string) => {
      const seed = await withRuntime((runtime) => exportSeed(runtime.services, runtime.uow.repositories));
      writeSeedFile(file, seed);
      io.out(program.opts().json ? JSON.stringify({ file, objects: Object.values(seed).reduce((n, list) => n + list.length, 0) }) : `wrote ${file}`);
    });

  program
    .command('env')
    .description('print the export lines that point the hosted service\'s SDKs and CLI at an xfer')
    .requiredOption('--url <url>', 'the base URL of the xfer stand-in (or of its auth app, when the apps have a port each)')
    .action((o: { url: string }) => io.out(clientEnvironment(o.url).join('\n')));

  program
    .command('worker')
    .description('run task workers alone, no servers: API_TASK_WORKERS tasks at once (default 4); on Postgres beside any number of other xfer processes')
    .action(async () => {
      const { apiConfig } = await import('@xfer/api');
      const config = apiConfig(io.env);
      if (config.taskWorkers === 0) throw new ConfigError('API_TASK_WORKERS=0: a worker without task workers has nothing to do');
      const url = databaseUrl();
      const { Runtime } = await import('@xfer/runtime');
      const runtime = await Runtime.start({ kind: 'worker', databaseUrl: url }, async (rt) => {
        await rt.startTaskWorkers({ concurrency: config.taskWorkers, log: io.err });
      });
      if (runtime.databaseName === 'sqlite') io.err('xfer worker: on SQLite one process runs tasks: start the servers with API_TASK_WORKERS=0');
      io.err(`xfer worker: ${config.taskWorkers} tasks at once (database ${url}); stops on SIGTERM or SIGINT, handing its tasks back`);
      runtime.closeOnSignals({ log: io.err });
      await new Promise(() => undefined);
    });

  program
    .command('serve')
    .description('serve the API (API_PORT, default 8080) and the helper pages (AUTH_PORT, default 8081)')
    .option('--demo', 'on first start, create the demo identity alice with demo data, and print how to use it')
    .option('--ephemeral', 'a stand-in for tests: both apps on one port, a throwaway in-memory database, control routes under /_xfer/')
    .option('--seed <file>', 'with --ephemeral: a JSON or YAML seed file of identities, tokens, endpoints...')
    .option('--port <n>', 'with --ephemeral: the port (0: a free one)', (v) => {
      if (!/^\d{1,5}$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError('must be a port from 0 to 65535');
      return Number(v);
    })
    .option('--exit-on-stdin-close', 'with --ephemeral: stop when standard input closes (the harness that started it ended)')
    .option('--print-env', 'with --ephemeral: print the export lines for the SDKs and CLI on stderr')
    .option('--export-on-exit <file>', 'with --ephemeral: write the state in the seed format when it stops')
    .action(async (options: { demo?: boolean; ephemeral?: boolean; seed?: string; port?: number; exitOnStdinClose?: boolean; printEnv?: boolean; exportOnExit?: string }) => {
      if (options.ephemeral) return serveStandIn(options);
      if (options.seed !== undefined || options.port !== undefined || options.exitOnStdinClose || options.printEnv || options.exportOnExit !== undefined) {
        throw new ConfigError('--seed, --port, --exit-on-stdin-close, --print-env and --export-on-exit go with --ephemeral');
      }
      const [{ apiConfig, apiCoreSettings, createApp }, { createApp: createHelperPagesApp, prepareSigningKeys, startHousekeeping, helperPagesConfig, pagesCoreSettings }, { consoleConfig, createConsoleApp, registerConsoleClient }, { Runtime }] = await Promise.all([
        import('@xfer/api'),
        import('@xfer/helper-pages'),
        import('@xfer/console'),
        import('@xfer/runtime'),
      ]);
      const config = apiConfig(io.env);
      const pagesConfig = helperPagesConfig(io.env);
      const consoleSettings = consoleConfig(io.env);
      const ports = [['API_PORT', config.apiPort], ['AUTH_PORT', pagesConfig.authPort], ['CONSOLE_PORT', consoleSettings.consolePort]] as const;
      for (const [i, [name, port]] of ports.entries()) {
        const clash = ports.slice(i + 1).find(([, other]) => other === port && port !== 0);
        if (clash) throw new ConfigError(`${name} and ${clash[0]} are both ${port}: the apps need a port each; set one of them`);
      }
      const url = databaseUrl();
      const apiUrl = `http://${config.host}:${config.apiPort}`;
      const authUrl = `http://${config.host}:${pagesConfig.authPort}`;
      // one runtime, one set of services for the three apps; closed in reverse: the console (its
      // sessions' tokens revoked while the authorization service still answers), then the others
      const runtime = await Runtime.start({ kind: 'server', databaseUrl: url, poolSize: config.databasePoolSize, core: { ...apiCoreSettings(config), ...pagesCoreSettings(pagesConfig) } }, async (rt) => {
        await prepareSigningKeys(rt.services, pagesConfig, io.err);
        // the workers before the ports: once a port answers, a signal finds its handler in place
        await rt.startTaskWorkers({ concurrency: config.taskWorkers, log: io.err });
        await rt.listen(createApp(rt.appServices, { bodyLimit: config.bodyLimit }), config.apiPort, config.host, 'API_PORT');
        await rt.listen(createHelperPagesApp(rt.appServices, { ...pagesConfig, apiUrl }), pagesConfig.authPort, config.host, 'AUTH_PORT');
        rt.onClose('housekeeping', startHousekeeping(rt.services.housekeeping, { log: io.err }));
        const credentials = await registerConsoleClient(rt.services.admin, consoleSettings.publicUrl, consoleSettings.clientSecret);
        const consoleApp = createConsoleApp({ ...consoleSettings, ...credentials });
        rt.onClose('console sessions', () => consoleApp.endSessions());
        await rt.listen(consoleApp, consoleSettings.consolePort, config.host, 'CONSOLE_PORT');
      });
      runtime.closeOnSignals({ log: io.err });
      io.err(`xfer API           ${apiUrl}/v0.10/   (database ${url})`);
      io.err(`xfer helper pages  ${authUrl}/v2/web/`);
      io.err(`xfer console       ${consoleSettings.publicUrl}/console/`);
      if (options.demo) {
        for (const line of await bootstrapDemo(runtime.services, apiUrl, authUrl)) io.err(line);
      }
      await new Promise(() => undefined);
    });

  /** `serve --ephemeral`: the one line with the URL on stdout once it answers; stops on a signal or when stdin closes. */
  async function serveStandIn(options: { seed?: string; port?: number; exitOnStdinClose?: boolean; printEnv?: boolean; exportOnExit?: string }) {
    const host = io.env.HOST ?? '127.0.0.1';
    const { StandIn } = await import('./standIn');
    const standIn = await StandIn.start({ port: options.port ?? 8080, host, seedFile: options.seed, env: io.env, log: io.err });
    if (options.printEnv) for (const line of clientEnvironment(standIn.url, standIn.nodesCa)) io.err(line);
    io.out(standIn.url);
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        // standard input, when watched, would keep the process alive after a signal
        if (options.exitOnStdinClose) process.stdin.destroy();
        const exported = options.exportOnExit === undefined ? Promise.resolve() : standIn.exportTo(options.exportOnExit).catch((error: Error) => io.err(`xfer: the export failed: ${error.message}`));
        exported.then(() => standIn.close()).then(resolve, resolve);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      if (options.exitOnStdinClose) {
        process.stdin.on('end', stop).on('close', stop).resume();
      }
    });
  }

  return program;
}

/** The environment that points the hosted service's SDKs (Python, JavaScript) and CLI at an xfer (and has them trust its data nodes' CA). */
export function clientEnvironment(url: string, nodesCa: string | null = null): string[] {
  const base = `${url.replace(/\/+$/, '')}/`;
  const trust = nodesCa === null ? [] : [`export GLOBUS_SDK_VERIFY_SSL=${nodesCa}`, `export NODE_EXTRA_CA_CERTS=${nodesCa}`];
  return [`export GLOBUS_SDK_SERVICE_URL_TRANSFER=${base}`, `export GLOBUS_SDK_SERVICE_URL_AUTH=${base}`, 'export GLOBUS_SDK_ENVIRONMENT=production', ...trust];
}

/** Runs the command line; returns the exit code instead of exiting, so tests can call it. */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_ERROR;
    // with --json a script reads errors as JSON too
    const report = (message: string) => io.err(argv.includes('--json') ? JSON.stringify({ error: message }) : `xfer: ${message}`);
    // a database URL that is wrong is a ConfigError too (DatabaseUrlError)
    if (error instanceof DomainError || error instanceof ConfigError) {
      report(error.message);
      return USAGE_ERROR;
    }
    report(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
