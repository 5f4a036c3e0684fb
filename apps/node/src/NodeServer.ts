import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '@xfer/config';
import { createLogger, type Logger } from '@xfer/server-kit';
import { EndpointStorages } from '@xfer/storage';
import { ApiLink, type NodeIdentity } from './ApiLink';
import { OwnFiles } from './OwnFiles';
import { ApiTrust } from './ApiTrust';
import { Peers } from './copy/Peers';
import { apiCallVerifier, createNodeApp, grantVerifier } from './http/app';
import { UPLOAD_IDLE_MS } from './http/requests';
import { AccountHelpers } from './accounts/AccountHelpers';
import { LocalAccounts } from './accounts/LocalAccounts';
import { MappedStorages } from './accounts/MappedStorages';

export interface NodeServeOptions {
  /** Where the API answers (http:// allowed: tests run it on loopback without TLS). */
  apiUrl: string;
  /** Where the authorization service answers (clients without a token are sent there). */
  authUrl: string;
  nodeId: string;
  /** A file holding the node's secret (surrounding whitespace ignored). */
  secretFile: string;
  /** The port to listen on; by default the port of the node's registered URL (0: a free one). */
  port?: number;
  host: string;
  /** PEM files of the node's certificate (its chain) and private key. */
  tlsCert: string;
  tlsKey: string;
  /** A CA the node trusts for the other nodes beside the system's and NODE_EXTRA_CA_CERTS (the stand-in's, a test's). */
  peerCa?: string;
  /** How long an upload's body may go quiet before it is cut (default UPLOAD_IDLE_MS); its whole length is never bounded. */
  uploadIdleMs?: number;
  logger?: Logger;
}

/** A request's head arrives within this. */
const HEADERS_MS = 60_000;

async function readSetting(path: string, what: string, option: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${what} cannot be read from '${path}' (${(error as NodeJS.ErrnoException).code ?? String(error)}): check ${option}`);
  }
}

/**
 * A running data node (`xfer node serve`), its one composition root: it knows itself through the
 * API (its id and secret; asked again every few seconds), serves the directories of this machine
 * that the API's endpoints are bound to over HTTPS (no other), and closes in order: the server,
 * then its briefings, its connections to other nodes, its accounts' helpers, the storages, the link to the API.
 */
export class NodeServer {
  private constructor(
    readonly identity: NodeIdentity,
    /** Where it answers: its registered URL, with the port it listens on. */
    readonly url: string,
    private readonly server: Server,
    private readonly peers: Peers,
    private readonly helpers: AccountHelpers | null,
    private readonly storages: EndpointStorages,
    private readonly trust: ApiTrust,
    private readonly api: ApiLink,
  ) {}

  /** Starts a node; a ConfigError says which setting is wrong (the API, the id, the secret, the certificate, the port). */
  static async start(options: NodeServeOptions): Promise<NodeServer> {
    const secret = (await readSetting(options.secretFile, "the node's secret", '--secret-file')).trim();
    if (!secret) throw new ConfigError(`'${options.secretFile}' holds no secret: check --secret-file (xfer node new-secret prints one)`);
    const cert = await readSetting(options.tlsCert, "the node's certificate", '--tls-cert');
    const key = await readSetting(options.tlsKey, "the node's private key", '--tls-key');
    try {
      createSecureContext({ cert, key });
    } catch (error) {
      throw new ConfigError(`the certificate and key are not a PEM certificate and its private key (${error instanceof Error ? error.message : String(error)}): check --tls-cert and --tls-key`);
    }
    const api = new ApiLink(options.apiUrl, options.nodeId, secret);
    const storages = new EndpointStorages();
    const peers = new Peers(options.peerCa);
    // as root (as GCS runs), a helper per local account touches a mapped collection's files; else it acts as itself alone
    const ownUid = process.getuid?.() ?? -1;
    const helpers = ownUid === 0 ? new AccountHelpers(options.uploadIdleMs ?? UPLOAD_IDLE_MS, options.peerCa) : null;
    let trust: ApiTrust | null = null;
    try {
      const briefing = await api.whoAmI();
      const identity = briefing.identity;
      trust = new ApiTrust(api, options.secretFile, briefing, new OwnFiles([options.secretFile, options.tlsCert, options.tlsKey]));
      const served = trust;
      const registered = new URL(identity.url);
      const prefix = registered.pathname.replace(/\/+$/, '');
      // the registered URL, with the port it listens on once it does
      const reached = { url: identity.url.replace(/\/+$/, '') };
      const storageAt = (root: string, base: string) => storages.storageOf(root, { type: 'posix', root }, base)!;
      const mapped = new MappedStorages(new LocalAccounts(), helpers, storageAt, ownUid);
      const app = createNodeApp({
        prefix,
        storages: {
          at: async (root, base, account) => {
            await served.assertServes(root);
            return mapped.at(await served.mappedPolicy({ root }, account), root, base, account);
          },
          ofEndpoint: async (endpointId, base, account) => {
            const root = await served.rootOf(endpointId);
            return mapped.at(await served.mappedPolicy({ endpointId }, account), root, base, account);
          },
          helperOf: async (where, account) => {
            const root = 'root' in where ? where.root : await served.rootOf(where.endpointId);
            if ('root' in where) await served.assertServes(root);
            const helper = await mapped.helperOf(await served.mappedPolicy(where, account), account);
            return helper && { ...helper, root };
          },
        },
        verifyApiCall: apiCallVerifier(trust),
        verifyGrant: grantVerifier(trust),
        peers,
        decide: (token, endpointId, path, access) => api.access(token, endpointId, path, access),
        authUrl: options.authUrl,
        publicUrl: () => reached.url,
        forwardManager: (request) => api.forwardManager(request),
        uploadIdleMs: options.uploadIdleMs,
        // every line the node logs names it, as the API's lines of its calls do
        logger: (options.logger ?? createLogger({ name: 'xfer-node' })).child({ node_id: identity.id }),
      });
      const server = createServer({ cert, key }, app);
      // an upload of many GB takes hours: no bound on a request's whole time (Node's default cuts at
      // 5 minutes); its head must come in time, and its body never goes quiet for long (the app's upload routes)
      server.requestTimeout = 0;
      server.headersTimeout = HEADERS_MS;
      const port = options.port ?? Number(registered.port || 443);
      await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject).listen(port, options.host)).catch((error: NodeJS.ErrnoException) => {
        throw new ConfigError(`the node cannot listen on ${options.host}:${port} (${error.code ?? error.message}): check --port and HOST`);
      });
      const url = new URL(identity.url);
      url.port = String((server.address() as AddressInfo).port);
      reached.url = url.href.replace(/\/+$/, '');
      return new NodeServer(identity, reached.url, server, peers, helpers, storages, trust.start(), api);
    } catch (error) {
      trust?.close();
      await helpers?.close();
      await peers.close();
      await storages.close();
      await api.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    this.trust.close();
    await this.peers.close();
    await this.helpers?.close();
    await this.storages.close();
    await this.api.close();
  }
}
