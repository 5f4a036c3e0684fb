import { readFile } from 'node:fs/promises';
import { policyDigest, type ActingAs, type MappedRootPolicy } from '@xfer/core';
import { API_ISSUER, NODE_CALL_ALGORITHM } from '@xfer/storage';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload, type KeyLike } from 'jose';
import { NodeUnregistered, type ApiLink, type NodeBriefing } from './ApiLink';
import { Unauthorized } from './http/requests';
import { OwnFiles } from './OwnFiles';

/** How often a running node asks the API about itself: a removal, a new secret, a new endpoint's directory or a new key reach it within this. */
export const BRIEFING_MS = 5_000;
/** A node asks again, on a key or a directory it does not know, at most this often (a stream of made-up ones costs the API one call a second). */
const ASK_AGAIN_MS = 1_000;

/**
 * What a node knows of the API, asked every BRIEFING_MS and when it meets something it does not
 * know: the public keys the API signs its calls with (none of them derived from anything the API's
 * database holds), and the directories of this node that the API's endpoints are bound to (it
 * serves those and no other). The API answering that it no longer knows the node (removed, or a new
 * secret: the secret file is read again first) stops the node serving anything at all.
 */
export class ApiTrust {
  private keys = new Map<string, Promise<KeyLike | Uint8Array>>();
  private roots = new Map<string, string>();
  private mapped = new Map<string, MappedRootPolicy>();
  private unregistered: string | null = null;
  private askedAt = 0;
  private asking: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly api: ApiLink,
    private readonly secretFile: string,
    briefing: NodeBriefing,
    private readonly ownFiles: OwnFiles = new OwnFiles([secretFile]),
  ) {
    this.learn(briefing);
  }

  /** Asks the API every BRIEFING_MS from now on. */
  start(): this {
    this.timer = setInterval(() => void this.ask().catch(() => undefined), BRIEFING_MS);
    this.timer.unref();
    return this;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Refuses (NodeUnregistered) while the API does not know this node. */
  assertRegistered(): void {
    if (this.unregistered !== null) throw new NodeUnregistered(this.unregistered);
  }

  /** A token the API signed for this node (its audience), checked; Unauthorized otherwise. */
  async verify(token: string): Promise<JWTPayload> {
    this.assertRegistered();
    const kid = headerKid(token);
    if (kid === null) throw new Unauthorized('a token of the API names its key');
    if (!this.keys.has(kid)) await this.askAgain();
    const key = this.keys.get(kid);
    if (!key) throw new Unauthorized('a token signed with a key the API does not publish');
    try {
      return (await jwtVerify(token, await key, { issuer: API_ISSUER, audience: this.api.nodeId, algorithms: [NODE_CALL_ALGORITHM] })).payload;
    } catch {
      throw new Unauthorized('a token this node does not take (another node\'s, altered, or expired)');
    }
  }

  /** Refuses (403) a directory that no endpoint of the API is bound to on this node, or that holds the node's own credentials. */
  async assertServes(root: string): Promise<void> {
    this.assertRegistered();
    if (![...this.roots.values()].includes(root)) await this.askAgain();
    if (![...this.roots.values()].includes(root)) throw new Unauthorized('root: no endpoint of the API is bound to this directory of the node', true);
    this.assertNotOwn(root);
  }

  /** The directory an endpoint's storage is bound to on this node (a grant names the endpoint); 403 for another. */
  async rootOf(endpointId: string): Promise<string> {
    this.assertRegistered();
    if (!this.roots.has(endpointId)) await this.askAgain();
    const root = this.roots.get(endpointId);
    if (root === undefined) throw new Unauthorized('endpoint: no endpoint of this node', true);
    this.assertNotOwn(root);
    return root;
  }

  /**
   * The policies of the mapped collection bound to an endpoint (by `endpointId`) or a directory
   * (by `root`: the first endpoint bound to it that maps identities); null where none is mapped.
   */
  async mappedPolicy(where: { endpointId: string } | { root: string }, actingAs: ActingAs | undefined): Promise<MappedRootPolicy | null> {
    // a call decided under another policy than this node was told (or mapped where it was told none, or the reverse) is newer: ask
    const known = this.policyOf(where);
    if (actingAs === undefined ? known !== null : known === null || policyDigest(known) !== actingAs.policy) await this.askAgain();
    return this.policyOf(where);
  }

  private policyOf(where: { endpointId: string } | { root: string }): MappedRootPolicy | null {
    if ('endpointId' in where) return this.mapped.get(where.endpointId) ?? null;
    for (const [endpointId, root] of this.roots) if (root === where.root && this.mapped.has(endpointId)) return this.mapped.get(endpointId)!;
    return null;
  }

  private assertNotOwn(root: string): void {
    if (this.ownFiles.heldBy(root)) throw new Unauthorized("root: this directory of the node holds the node's own secret or TLS key, which it never serves", true);
  }

  /** Asks the API now, unless it was asked within ASK_AGAIN_MS (then once that has passed); one question at a time. */
  private async askAgain(): Promise<void> {
    const wait = this.askedAt + ASK_AGAIN_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await this.ask().catch(() => undefined);
  }

  private ask(): Promise<void> {
    this.asking ??= (async () => {
      this.askedAt = Date.now();
      try {
        this.learn(await this.api.briefing());
      } catch (error) {
        if (!(error instanceof NodeUnregistered)) throw error;
        // a new secret written to the file is taken without a restart
        const secret = (await readFile(this.secretFile, 'utf8').catch(() => '')).trim();
        if (secret && this.api.useSecret(secret)) return this.learn(await this.api.briefing());
        this.unregistered = error.message;
      }
    })().finally(() => (this.asking = null));
    return this.asking;
  }

  private learn(briefing: NodeBriefing): void {
    this.unregistered = null;
    this.ownFiles.forget();
    this.roots = new Map(briefing.roots.map((served) => [served.endpoint, served.root]));
    this.mapped = new Map(briefing.roots.flatMap((served) => (served.mapped ? [[served.endpoint, served.mapped] as const] : [])));
    const keys = new Map<string, Promise<KeyLike | Uint8Array>>();
    for (const jwk of briefing.callKeys) {
      if (typeof jwk.kid !== 'string') continue;
      const known = this.keys.get(jwk.kid);
      const key = known ?? importJWK(jwk as unknown as JWK, NODE_CALL_ALGORITHM);
      key.catch(() => undefined);
      keys.set(jwk.kid, key);
    }
    this.keys = keys;
  }
}

/** The key id a JWT's header names, or null. */
function headerKid(token: string): string | null {
  try {
    const { kid } = decodeProtectedHeader(token);
    return typeof kid === 'string' ? kid : null;
  } catch {
    return null;
  }
}
