/** What an RFC 7662 authorization server says of a token (with the hosted service's identity_set). */
export interface TokenIntrospection {
  active: boolean;
  sub?: string;
  username?: string;
  name?: string | null;
  email?: string | null;
  scope?: string;
  identity_set?: string[];
}

/** Port: asks an external authorization server about a token. */
export interface TokenIntrospector {
  introspect(token: string): Promise<TokenIntrospection>;
}
