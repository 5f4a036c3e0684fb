import { randomBytes } from 'node:crypto';
import { CONSOLE_SCOPES } from '@xfer/core';
import { EncryptJWT, jwtDecrypt } from 'jose';
import { generators, Issuer, type BaseClient, type CallbackParamsType } from 'openid-client';
import type { ConsolePerson, ConsoleTokens } from './sessions';

export interface SignInOptions {
  authUrl: string;
  /** The console's address as browsers reach it. */
  publicUrl: string;
  clientId: string;
  clientSecret: string;
}

/** The resource servers whose tokens the console uses. */
const TRANSFER = 'transfer.api.globus.org';
const AUTH = 'auth.globus.org';

/** Signing-in refused or broken (a stale or forged callback): the person starts again. */
export class SignInError extends Error {}

interface TokenDocument {
  access_token: string;
  refresh_token?: string | null;
  resource_server?: string;
}

/** An authorization request under way: checked when the browser comes back, then forgotten. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  /** The console page to land on afterwards. */
  next: string;
}

/** How long a browser may take to come back from signing in. */
export const SIGN_IN_SECONDS = 10 * 60;

/**
 * A sign-in under way, sealed into the browser's own cookie (encrypted and authenticated with a
 * key of this process, by jose: JWE, dir + A256GCM, expiring): anonymous visitors cost the server
 * nothing, and a forged or stale cookie opens to nothing.
 */
export class PendingSignIns {
  private readonly key = randomBytes(32);

  seal(pending: PendingSignIn): Promise<string> {
    return new EncryptJWT({ ...pending }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).setIssuedAt().setExpirationTime(`${SIGN_IN_SECONDS}s`).encrypt(this.key);
  }

  /** The sign-in sealed in `sealed`, or null when it is missing, forged, from another process or too old. */
  async open(sealed: string | undefined): Promise<PendingSignIn | null> {
    if (!sealed) return null;
    try {
      const { payload } = await jwtDecrypt(sealed, this.key, { maxTokenAge: `${SIGN_IN_SECONDS}s` });
      const { state, nonce, verifier, next } = payload as Record<string, unknown>;
      return [state, nonce, verifier, next].every((v) => typeof v === 'string') ? ({ state, nonce, verifier, next } as unknown as PendingSignIn) : null;
    } catch {
      return null;
    }
  }
}

/**
 * The console as an OAuth 2.0 / OpenID Connect client of our authorization service: authorization
 * code with PKCE, as a confidential client (openid-client verifies the id_token, state and nonce).
 */
export class ConsoleSignIn {
  private discovered: Promise<BaseClient> | null = null;

  constructor(private readonly options: SignInOptions) {}

  get callbackUrl(): string {
    return `${this.options.publicUrl}/console/callback`;
  }

  /** Where the authorization service's sign-out page sends people back to. */
  get homeUrl(): string {
    return `${this.options.publicUrl}/console/`;
  }

  /** An authorization request: where to send the browser, and what to check when it comes back (`next`: the page to land on). */
  async start(next: string): Promise<{ url: string; pending: PendingSignIn }> {
    const client = await this.client();
    const pending: PendingSignIn = { state: generators.state(), nonce: generators.nonce(), verifier: generators.codeVerifier(), next };
    const url = client.authorizationUrl({
      scope: CONSOLE_SCOPES.join(' '),
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: generators.codeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url, pending };
  }

  /** Exchanges the code the browser brought back for the person and every token of the sign-in. */
  async finish(pending: PendingSignIn | null, params: CallbackParamsType): Promise<{ person: ConsolePerson; tokens: ConsoleTokens }> {
    if (!pending) throw new SignInError('This sign-in did not start in this browser, or took too long');
    if (params.error) throw new SignInError(params.error_description ?? params.error);
    const client = await this.client();
    let tokens;
    try {
      tokens = await client.callback(this.callbackUrl, params, { state: pending.state, nonce: pending.nonce, code_verifier: pending.verifier });
    } catch (error) {
      throw new SignInError((error as Error).message);
    }
    const all: TokenDocument[] = [tokens as unknown as TokenDocument, ...(((tokens as { other_tokens?: TokenDocument[] }).other_tokens) ?? [])];
    const granted: ConsoleTokens = { transfer: '', auth: '', access: all.map((t) => t.access_token), refresh: all.flatMap((t) => (t.refresh_token ? [t.refresh_token] : [])) };
    const of = (server: string) => all.find((t) => t.resource_server === server)?.access_token;
    const transfer = of(TRANSFER);
    const auth = of(AUTH);
    if (!transfer || !auth) {
      await this.revoke(granted);
      throw new SignInError('The authorization service did not grant the transfer and auth scopes the console needs');
    }
    const claims = tokens.claims();
    return { person: { id: claims.sub, username: String(claims.preferred_username ?? claims.sub), name: typeof claims.name === 'string' ? claims.name : null }, tokens: { ...granted, transfer, auth } };
  }

  /** Revokes every token of a sign-in: refresh tokens (which take their access tokens along) and access tokens. Best effort: a token the service has forgotten is revoked already. */
  async revoke(tokens: Pick<ConsoleTokens, 'access' | 'refresh'>): Promise<void> {
    const client = await this.client();
    await Promise.all([
      ...tokens.refresh.map((token) => client.revoke(token, 'refresh_token').catch(() => undefined)),
      ...tokens.access.map((token) => client.revoke(token, 'access_token').catch(() => undefined)),
    ]);
  }

  /** The client, from the discovery document, fetched once (again after a failure). */
  private client(): Promise<BaseClient> {
    this.discovered ??= Issuer.discover(this.options.authUrl).then(
      (issuer) =>
        new issuer.Client({
          client_id: this.options.clientId,
          client_secret: this.options.clientSecret,
          redirect_uris: [this.callbackUrl],
          response_types: ['code'],
          id_token_signed_response_alg: 'RS512',
        }),
      (error: Error) => {
        this.discovered = null;
        throw new SignInError(`The authorization service at ${this.options.authUrl} did not answer: ${error.message}`);
      },
    );
    return this.discovered;
  }
}
