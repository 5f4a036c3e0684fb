import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { NodeNotReachableError } from '@xfer/core';
import type { Dispatcher, Pool } from 'undici';
import type { NodeCallSigner } from './NodeCallSigner';
import { boundedJson, failureFromWire, grantClaim, NODE_STORAGE_PATH, READ_GRANT_CLAIM, READ_GRANT_SECONDS, STORAGE_REFUSED, type ReadGrant, type StorageOperation } from './protocol';

/** A node's address, as the API keeps it; a node's helper for one local account is reached on a Unix socket (`socketPath`, the URL then only names it). */
export interface NodeAddress {
  url: string;
  socketPath?: string;
}

/** How the API finds a node by its id (its repository); null for one not registered. */
export type FindNode = (nodeId: string) => Promise<NodeAddress | null>;

/**
 * How this process reaches nodes: where it finds them, how it signs its calls (its own key, never
 * one the database holds), and a CA it trusts beside the system's and NODE_EXTRA_CA_CERTS (the
 * stand-in's own).
 */
export interface NodeReach {
  find: FindNode;
  signer: Pick<NodeCallSigner, 'sign'>;
  extraCa?: string;
}

/** How long a node's address is used before it is looked up again (a new secret or URL is picked up). */
const ADDRESS_MS = 10_000;
/** How long a call token lives, and how long before its end a new one is made. */
const TOKEN_SECONDS = 300;
const TOKEN_RENEW_MS = 60_000;
/** A call that answers nothing for this long fails: the node is not reachable. */
const ANSWER_MS = 20_000;
/** A digest of a large file is answered only once it is computed. */
export const DIGEST_MS = 30 * 60_000;
/** The largest JSON document of a node's the API reads by default (a stat, a digest, a write's bytes), and of its refusals. */
const DOCUMENT_BYTES = 64 * 1024;
/** The largest document of entries (NAMES_STATED_AT_ONCE of them, each with a long name and a link's target). */
export const ENTRIES_BYTES = 16 * 2 ** 20;

export interface NodeCall {
  endpointId: string;
  operation: StorageOperation;
  query: Record<string, string | undefined>;
  method?: 'GET' | 'POST' | 'PUT';
  body?: string | AsyncIterable<Uint8Array>;
  /** The body's type, where it is a stream of JSON (a string body is JSON). */
  contentType?: string;
  /** How long the node may take to answer (default ANSWER_MS). */
  answerMs?: number;
  /** Aborting it closes the connection: the node stops what the call asked. */
  signal?: AbortSignal;
}

interface Connection {
  url: URL;
  socketPath?: string;
  pool: Pool;
  until: number;
}

/**
 * One data node as the API reaches it: a pool of connections to its URL, and the token its calls
 * carry (signed with this process's key, for this node). A node that cannot be reached, or that
 * refuses the API's token, is NodeNotReachableError naming the endpoint; a storage's refusal on the
 * node is its StorageError.
 */
export class NodeClient {
  private connection: Promise<Connection> | null = null;
  private token: { value: string; until: number } | null = null;
  private readonly retired: Pool[] = [];

  constructor(
    readonly nodeId: string,
    private readonly reach: NodeReach,
  ) {}

  /** Sends a call; answers the response once its status says success (its body still to read). */
  async call(call: NodeCall): Promise<Dispatcher.ResponseData> {
    const unreachable = (reason: string) => new NodeNotReachableError(call.endpointId, this.nodeId, reason);
    const connection = await this.connect().catch((error: unknown) => {
      throw unreachable(error instanceof Error ? error.message : String(error));
    });
    const query = new URLSearchParams(Object.entries(call.query).filter((entry): entry is [string, string] => entry[1] !== undefined));
    let response: Dispatcher.ResponseData;
    try {
      response = await connection.pool.request({
        path: `${connection.url.pathname.replace(/\/$/, '')}${NODE_STORAGE_PATH}/${call.operation}?${query}`,
        method: call.method ?? 'GET',
        headers: { authorization: `Bearer ${await this.tokenFor()}`, ...(typeof call.body === 'string' ? { 'content-type': 'application/json' } : call.contentType && { 'content-type': call.contentType }) },
        body: typeof call.body === 'object' ? Readable.from(call.body, { objectMode: false }) : (call.body ?? null),
        headersTimeout: call.answerMs ?? ANSWER_MS,
        bodyTimeout: call.answerMs ?? ANSWER_MS,
        signal: call.signal,
      });
    } catch (error) {
      throw unreachable(error instanceof Error ? (error as { code?: string }).code ?? error.message : String(error));
    }
    if (response.statusCode < 300) return response;
    const body = await boundedJson(response.body, DOCUMENT_BYTES).catch(() => null);
    if (response.statusCode === STORAGE_REFUSED) {
      const refusal = failureFromWire(body);
      if (refusal) throw refusal;
    }
    // the node's own words, where it said any: a token it refused, a request it could not take
    const said = (body as { message?: unknown } | null)?.message;
    throw unreachable(`it answered ${response.statusCode}${typeof said === 'string' ? `: ${said.slice(0, 200)}` : ''}`);
  }

  /**
   * A grant for another node to read files of this one (READ_GRANT_CLAIM), with this node's URL:
   * what the destination of a copy presents here.
   */
  async grant(endpointId: string, grant: ReadGrant): Promise<{ url: string; grant: string }> {
    const connection = await this.connect().catch((error: unknown) => {
      throw new NodeNotReachableError(endpointId, this.nodeId, error instanceof Error ? error.message : String(error));
    });
    const token = await this.reach.signer.sign({ [READ_GRANT_CLAIM]: grantClaim(grant) }, this.nodeId, READ_GRANT_SECONDS);
    return { url: connection.url.href.replace(/\/+$/, ''), grant: token };
  }

  /** The JSON of a call's answer, at most `maxBytes` of it (a node that sends more is given up on). */
  async json<T>(call: NodeCall, maxBytes = DOCUMENT_BYTES): Promise<T> {
    const response = await this.call(call);
    return (await boundedJson(response.body, maxBytes).catch((error: unknown) => {
      throw new NodeNotReachableError(call.endpointId, this.nodeId, `its answer could not be read: ${error instanceof Error ? error.message : String(error)}`);
    })) as T;
  }

  /** Closes the connections (calls in flight fail). */
  async close(): Promise<void> {
    const current = await this.connection?.catch(() => null);
    this.connection = null;
    await Promise.all([...this.retired.splice(0), ...(current ? [current.pool] : [])].map((pool) => pool.destroy().catch(() => undefined)));
  }

  private connect(): Promise<Connection> {
    const now = Date.now();
    const current = this.connection;
    if (current) {
      // looked up again after a while; meanwhile calls use what was found
      return current.then(
        (connection) => (connection.until > now ? connection : this.lookUp(connection)),
        () => this.lookUp(null),
      );
    }
    return this.lookUp(null);
  }

  private lookUp(previous: Connection | null): Promise<Connection> {
    const next = (async (): Promise<Connection> => {
      const address = await this.reach.find(this.nodeId);
      if (!address) throw new Error('no such node is registered');
      const url = new URL(address.url);
      const until = Date.now() + ADDRESS_MS;
      if (previous && previous.url.href === url.href && previous.socketPath === address.socketPath) return { ...previous, until };
      if (previous) this.retired.push(previous.pool);
      const ca = trustedCas(this.reach.extraCa);
      // loaded once a node is reached: a process that reaches none (the stand-in without nodes) starts without it
      const { Pool } = await import('undici');
      const connect = address.socketPath !== undefined ? { socketPath: address.socketPath } : ca && { ca };
      return { url, socketPath: address.socketPath, until, pool: new Pool(url.origin, { connections: 16, connectTimeout: 5_000, keepAliveTimeout: 30_000, connect }) };
    })();
    this.connection = next;
    // a failed lookup is tried again by the next call
    next.catch(() => {
      if (this.connection === next) this.connection = null;
    });
    return next;
  }

  private async tokenFor(): Promise<string> {
    const now = Date.now();
    if (this.token && this.token.until - TOKEN_RENEW_MS > now) return this.token.value;
    const value = await this.reach.signer.sign({}, this.nodeId, TOKEN_SECONDS);
    this.token = { value, until: now + TOKEN_SECONDS * 1000 };
    return value;
  }
}

/**
 * The CAs a connection to a node trusts when `extraCa` is given: the system's, NODE_EXTRA_CA_CERTS's
 * and that one (a CA given to a pool replaces the defaults, these included); none given, the defaults.
 */
export function trustedCas(extraCa: string | undefined): string[] | undefined {
  if (extraCa === undefined) return undefined;
  // node:tls is loaded here, once a node is reached, not at every process's start
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { rootCertificates } = require('node:tls') as typeof import('node:tls');
  return [...rootCertificates, ...extraCertificates(), extraCa];
}

/** What NODE_EXTRA_CA_CERTS adds. */
function extraCertificates(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}
