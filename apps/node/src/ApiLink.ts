import { ConfigError } from '@xfer/config';
import { Pool } from 'undici';

/** The node as the API registered it. */
export interface NodeIdentity {
  id: string;
  name: string;
  /** Its HTTPS base URL (a path prefix allowed). */
  url: string;
}

/** Where a running node asks the API about itself (the API's NODE_SELF_PATH). */
const NODE_SELF_PATH = '/_xfer/node';
const ANSWER_MS = 10_000;

/**
 * The node's side of its link to the API: it knows the API by its URL, and itself by its id and
 * its secret (HTTP Basic over the API's TLS), never by the API's database.
 */
export class ApiLink {
  private readonly pool: Pool;
  private readonly base: string;
  private readonly authorization: string;

  constructor(
    readonly apiUrl: string,
    readonly nodeId: string,
    secret: string,
  ) {
    const url = new URL(apiUrl);
    this.pool = new Pool(url.origin, { connections: 8, connectTimeout: 5_000 });
    this.base = url.pathname.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${nodeId}:${secret}`).toString('base64')}`;
  }

  /** The node as the API knows it; a ConfigError saying what is wrong (the API, the id or the secret) otherwise. */
  async whoAmI(): Promise<NodeIdentity> {
    let answer;
    try {
      answer = await this.pool.request({ path: `${this.base}${NODE_SELF_PATH}`, method: 'GET', headers: { authorization: this.authorization }, headersTimeout: ANSWER_MS, bodyTimeout: ANSWER_MS });
    } catch (error) {
      throw new ConfigError(`the API at ${this.apiUrl} does not answer (${describe(error)}): check --api`);
    }
    const body = (await answer.body.json().catch(() => null)) as Partial<NodeIdentity> | null;
    if (answer.statusCode === 401) throw new ConfigError(`the API at ${this.apiUrl} knows no node ${this.nodeId} with this secret: check --id and --secret-file (xfer node list, xfer node new-secret)`);
    if (answer.statusCode !== 200 || typeof body?.id !== 'string' || typeof body.url !== 'string' || typeof body.name !== 'string') {
      throw new ConfigError(`${this.apiUrl} answered ${answer.statusCode} where an xfer API answers a node: check --api`);
    }
    return { id: body.id, name: body.name, url: body.url };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  return code ? `${code}: ${error.message}` : error.message;
}
