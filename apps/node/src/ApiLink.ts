import { ConfigError } from '@xfer/config';
import { hashToken, NodeAuthenticationFailedError, type ActingAs, type MappedRootPolicy } from '@xfer/core';
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { describeError } from './describeError';

/** The node is no longer registered with the API (removed, or its secret replaced): it serves nothing until it is. */
export class NodeUnregistered extends Error {}

/** The API did not answer a node's question (down, or unreachable). */
class ApiUnanswered extends Error {}

const basic = (nodeId: string, secret: string) => `Basic ${Buffer.from(`${nodeId}:${secret}`).toString('base64')}`;

/** The node as the API registered it. */
export interface NodeIdentity {
  id: string;
  name: string;
  /** Its HTTPS base URL (a path prefix allowed). */
  url: string;
}

/** What the API tells a node of itself each time it asks: who it is, the directories it serves (by endpoint), and the public keys of the API's calls. */
export interface NodeBriefing {
  identity: NodeIdentity;
  /** `mapped`: the policies of a mapped collection's gateway (the node acts as local accounts there, and only there). */
  roots: { endpoint: string; root: string; mapped?: MappedRootPolicy | null }[];
  callKeys: ({ kid?: unknown } & Record<string, unknown>)[];
}

/** Where a running node asks the API about itself, and about its clients' access (the API's NODE_SELF_PATH and NODE_ACCESS_PATH). */
const NODE_SELF_PATH = '/_xfer/node';
const NODE_ACCESS_PATH = '/_xfer/node/access';
const ANSWER_MS = 10_000;
/** How long an access the API decided is used without asking again: a revoked token or rule stops within this, a new one starts within it. */
export const ACCESS_MEMORY_MS = 5_000;
/** Decisions kept at most (the oldest go first). */
const ACCESS_MEMORY_SIZE = 10_000;

export type HttpsAccess = 'read' | 'write' | 'delete';

/** Where the API lets a client's request go: a directory of this node, a share's base in it, the file's path from there. */
export interface AccessDecision {
  identityId: string;
  root: string;
  base: string;
  path: string;
  /** The local account the files are used as (a mapped collection's), and the policy the API decided under; null: the node's own. */
  actingAs: ActingAs | null;
}

/** A decision of the API's as the node remembers it, until when. */
type Decided = ({ decision: AccessDecision } | { refused: AccessRefused }) & { until: number };

/** The API's refusal of a client's request, as the client is told it. */
export class AccessRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The node's side of its link to the API: it knows the API by its URL, and itself by its id and
 * its secret (HTTP Basic over the API's TLS), never by the API's database.
 */
export class ApiLink {
  private readonly pool: Pool;
  private readonly base: string;
  private authorization: string;
  private secret: string;
  private readonly decisions = new Map<string, Decided>();

  constructor(
    readonly apiUrl: string,
    readonly nodeId: string,
    secret: string,
  ) {
    const url = new URL(apiUrl);
    this.pool = new Pool(url.origin, { connections: 8, connectTimeout: 5_000 });
    this.base = url.pathname.replace(/\/+$/, '');
    this.secret = secret;
    this.authorization = basic(nodeId, secret);
  }

  /** Presents `secret` from now on; false when it is the one presented already. */
  useSecret(secret: string): boolean {
    if (secret === this.secret) return false;
    this.secret = secret;
    this.authorization = basic(this.nodeId, secret);
    return true;
  }

  /** The node as the API knows it, at start; a ConfigError saying what is wrong (the API, the id or the secret) otherwise. */
  async whoAmI(): Promise<NodeBriefing> {
    try {
      return await this.briefing();
    } catch (error) {
      if (error instanceof NodeUnregistered) throw new ConfigError(`the API at ${this.apiUrl} knows no node ${this.nodeId} with this secret: check --id and --secret-file (xfer node list, xfer node new-secret)`);
      if (error instanceof ApiUnanswered) throw new ConfigError(`the API at ${this.apiUrl} does not answer (${error.message}): check --api`);
      throw error;
    }
  }

  /** What the API tells the node of itself now; NodeUnregistered when it does not know the node (removed, or another secret). */
  async briefing(): Promise<NodeBriefing> {
    let answer;
    try {
      answer = await this.pool.request({ path: `${this.base}${NODE_SELF_PATH}`, method: 'GET', headers: { authorization: this.authorization }, headersTimeout: ANSWER_MS, bodyTimeout: ANSWER_MS });
    } catch (error) {
      throw new ApiUnanswered(describeError(error));
    }
    const body = (await answer.body.json().catch(() => null)) as (Partial<NodeIdentity> & { roots?: unknown; call_keys?: unknown }) | null;
    if (answer.statusCode === 401) throw new NodeUnregistered(`the API no longer knows this node with its secret (it was removed, or given a new secret: xfer node list, xfer node new-secret)`);
    if (answer.statusCode !== 200 || typeof body?.id !== 'string' || typeof body.url !== 'string' || typeof body.name !== 'string' || !Array.isArray(body.roots) || !Array.isArray(body.call_keys)) {
      throw new ConfigError(`${this.apiUrl} answered ${answer.statusCode} where an xfer API answers a node: check --api`);
    }
    const roots = (body.roots as { endpoint?: unknown; root?: unknown }[]).filter((served): served is { endpoint: string; root: string } => typeof served?.endpoint === 'string' && typeof served.root === 'string');
    return { identity: { id: body.id, name: body.name, url: body.url }, roots, callKeys: body.call_keys as NodeBriefing['callKeys'] };
  }

  /**
   * Whether the bearer of `token` may `access` the file at `path` of an endpoint this node serves:
   * the API decides by its file operations' rules; its decision, allowed or refused, is remembered
   * for ACCESS_MEMORY_MS (a token the API does not know: for any file), so that a stream of the
   * same garbage costs the API one question (AccessRefused with the status the client gets).
   */
  async access(token: string, endpointId: string, path: string, access: HttpsAccess): Promise<AccessDecision> {
    const tokenKey = hashToken(token);
    const key = `${tokenKey}\0${endpointId}\0${access}\0${path}`;
    const now = Date.now();
    const known = this.decisions.get(key) ?? this.decisions.get(tokenKey);
    if (known && known.until > now) {
      if ('refused' in known) throw known.refused;
      return known.decision;
    }
    const refuse = (refused: AccessRefused): never => {
      // the node's own trouble (the API down, the node unknown) is never remembered: the next client asks again
      if (refused.status !== 503) this.remember(refused.status === 401 ? tokenKey : key, { refused, until: now + ACCESS_MEMORY_MS }, now);
      throw refused;
    };
    let answer;
    try {
      answer = await this.pool.request({
        path: `${this.base}${NODE_ACCESS_PATH}`,
        method: 'POST',
        headers: { authorization: this.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ token, endpoint: endpointId, path, access }),
        headersTimeout: ANSWER_MS,
        bodyTimeout: ANSWER_MS,
      });
    } catch (error) {
      throw new AccessRefused(503, 'ApiNotReachable', `This node cannot reach the API to decide access (${describeError(error)}); try again later`);
    }
    const body = (await answer.body.json().catch(() => null)) as (Partial<Record<keyof AccessDecision | 'identity_id' | 'code' | 'message', string>> & Record<string, unknown>) | null;
    if (answer.statusCode !== 200) {
      // the node's own credentials refused: the client can do nothing about it
      if (body?.code === NodeAuthenticationFailedError.CODE) throw new AccessRefused(503, 'ApiRefusedNode', 'The API does not know this node (its secret changed?)');
      const status = [400, 401, 403, 404, 409].includes(answer.statusCode) ? (answer.statusCode === 409 ? 403 : answer.statusCode) : 502;
      refuse(new AccessRefused(status, String(body?.code ?? 'Refused'), String(body?.message ?? `The API answered ${answer.statusCode}`)));
    }
    const decision: AccessDecision = { identityId: String(body?.identity_id), root: String(body?.root), base: String(body?.base), path: String(body?.path), actingAs: typeof body?.local_user === 'string' ? { account: body.local_user, policy: String(body.policy) } : null };
    this.remember(key, { decision, until: now + ACCESS_MEMORY_MS }, now);
    return decision;
  }

  /** Keeps a decision, the oldest going first once ACCESS_MEMORY_SIZE are kept. */
  private remember(key: string, decided: Decided, now: number): void {
    if (this.decisions.size >= ACCESS_MEMORY_SIZE) {
      for (const [stored, { until }] of this.decisions) if (until <= now || this.decisions.size >= ACCESS_MEMORY_SIZE) this.decisions.delete(stored);
    }
    this.decisions.set(key, decided);
  }

  /**
   * A request to the node's GCS Manager API (`/api/...`), forwarded as it came to the API, which
   * decides it (GCS_MANAGER_PATH): the client's own credentials, the answer streamed back as it is.
   */
  async forwardManager(request: { method: string; path: string; headers: Record<string, string | undefined>; body: Readable | null }): Promise<Dispatcher.ResponseData> {
    const headers = Object.fromEntries(Object.entries(request.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return this.pool.request({ path: `${this.base}/_xfer/gcs/${this.nodeId}/api${request.path}`, method: request.method as Dispatcher.HttpMethod, headers, body: request.body, headersTimeout: ANSWER_MS, bodyTimeout: ANSWER_MS });
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
