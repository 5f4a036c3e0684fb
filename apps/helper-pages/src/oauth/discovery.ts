import { VIEW_IDENTITY_SET_SCOPE } from '@xfer/core';

export const DEPENDENT_TOKEN_GRANT = 'urn:globus:auth:grant_type:dependent_token';
export const JWKS_PATH = '/jwk.json';

/**
 * The OpenID Connect discovery document (OpenID Connect Discovery 1.0, RFC 8414) at the hosted
 * service's paths, for an issuer at `issuer`; `scopes` are the registered scope names.
 */
export function discoveryDocument(issuer: string, scopes: readonly string[], algorithm: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/v2/oauth2/authorize`,
    token_endpoint: `${issuer}/v2/oauth2/token`,
    userinfo_endpoint: `${issuer}/v2/oauth2/userinfo`,
    jwks_uri: `${issuer}${JWKS_PATH}`,
    revocation_endpoint: `${issuer}/v2/oauth2/token/revoke`,
    introspection_endpoint: `${issuer}/v2/oauth2/token/introspect`,
    scopes_supported: [...new Set(['openid', 'profile', 'email', VIEW_IDENTITY_SET_SCOPE, ...scopes])],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEPENDENT_TOKEN_GRANT],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [algorithm],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    claims_supported: [
      'iss', 'sub', 'aud', 'exp', 'iat', 'at_hash', 'nonce', 'preferred_username', 'name', 'email', 'organization',
      'identity_provider', 'identity_provider_display_name', 'last_authentication', 'identity_set',
    ],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login'],
  };
}
