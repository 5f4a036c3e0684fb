import { CONSOLE_SCOPES } from '@xfer/core';
import { generators, Issuer, type BaseClient, type CallbackParamsType } from 'openid-client';
import type { ConsoleSession } from './sessions';

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
  resource_server?: string;
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

  /** The authorization request to send the browser to; `next`: the console page to land on afterwards. */
  async start(session: ConsoleSession, next: string): Promise<string> {
    const client = await this.client();
    const pending = { state: generators.state(), nonce: generators.nonce(), verifier: generators.codeVerifier(), next };
    session.pending = pending;
    return client.authorizationUrl({
      scope: CONSOLE_SCOPES.join(' '),
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: generators.codeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
  }

  /** Exchanges the code the browser brought back; the session then holds the person and their tokens. Returns where to go. */
  async finish(session: ConsoleSession, params: CallbackParamsType): Promise<string> {
    const pending = session.pending;
    session.pending = null;
    if (!pending) throw new SignInError('No sign-in was under way in this browser');
    if (params.error) throw new SignInError(params.error_description ?? params.error);
    const client = await this.client();
    let tokens;
    try {
      tokens = await client.callback(this.callbackUrl, params, { state: pending.state, nonce: pending.nonce, code_verifier: pending.verifier });
    } catch (error) {
      throw new SignInError((error as Error).message);
    }
    const all: TokenDocument[] = [tokens as unknown as TokenDocument, ...(((tokens as { other_tokens?: TokenDocument[] }).other_tokens) ?? [])];
    const of = (server: string) => all.find((t) => t.resource_server === server)?.access_token;
    const transfer = of(TRANSFER);
    const auth = of(AUTH);
    if (!transfer || !auth) throw new SignInError('The authorization service did not grant the transfer and auth scopes the console needs');
    const claims = tokens.claims();
    session.person = { id: claims.sub, username: String(claims.preferred_username ?? claims.sub), name: typeof claims.name === 'string' ? claims.name : null };
    session.tokens = { transfer, auth, all: all.map((t) => t.access_token) };
    return pending.next;
  }

  /** Revokes tokens (best effort: a token the service has forgotten is revoked already). */
  async revoke(tokens: readonly string[]): Promise<void> {
    const client = await this.client();
    await Promise.all(tokens.map((token) => client.revoke(token, 'access_token').catch(() => undefined)));
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
