/**
 * What the authorization service remembers between the steps of an OAuth 2.0 grant: authorization
 * codes (single use, short lived) and refresh tokens. Like access tokens, only their SHA-256 is stored.
 */
export interface AuthorizationCodeState {
  code_hash: string;
  client_id: string;
  identity_id: string;
  redirect_uri: string;
  scopes: string[];
  /** PKCE (RFC 7636): the S256 challenge the token request's verifier must match. */
  code_challenge: string | null;
  code_challenge_method: string | null;
  /** OpenID Connect: the authorize request's nonce, echoed in the id_token. */
  nonce: string | null;
  /** When the user signed in (the session's start): `last_authentication` of the id_token. */
  auth_time: Date | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface AuthorizationCodeRepository {
  add(code: AuthorizationCodeState): Promise<void>;
  findByHash(hash: string): Promise<AuthorizationCodeState | null>;
  /** Marks the code used; false when it was used already (two racing exchanges: one wins). */
  markUsed(hash: string, at: Date): Promise<boolean>;
  /** Deletes at most `limit` codes that expired before `before`; returns how many. */
  purgeExpired(before: Date, limit: number): Promise<number>;
}

export interface RefreshTokenState {
  token_hash: string;
  identity_id: string;
  client_id: string;
  scopes: string[];
  resource_server: string;
  /** The code it was issued for: if that code is presented again, this token is revoked (RFC 6749 4.1.2). */
  authorization_code_hash: string | null;
  /** When the user signed in for the grant this token came from. */
  auth_time: Date | null;
  /** The client whose consents this token rests on when not its own (a dependent token's). */
  consent_client_id: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Whether a refresh token can still be used: refresh tokens live until revoked (the hosted service does not rotate them). */
export function isRefreshTokenLive(token: Pick<RefreshTokenState, 'revoked_at'>): boolean {
  return token.revoked_at === null;
}

export interface RefreshTokenRepository {
  add(token: RefreshTokenState): Promise<void>;
  findByHash(hash: string): Promise<RefreshTokenState | null>;
  /** Revokes one refresh token; false when it was not live. */
  revoke(hash: string, at: Date): Promise<boolean>;
  /** Revokes the live refresh tokens issued for an authorization code; returns their hashes. */
  revokeIssuedForCode(codeHash: string, at: Date): Promise<string[]>;
  /** Revokes the live refresh tokens of these identities issued to the client or resting on its consent; returns how many. */
  revokeIssuedTo(identityIds: readonly string[], clientId: string, at: Date): Promise<number>;
  /** Revokes every live refresh token issued to the client (it is being removed); returns how many. */
  revokeForClient(clientId: string, at: Date): Promise<number>;
}
