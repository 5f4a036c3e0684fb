import { BadRequestError } from '../shared/errors';
import { checkHttpUrl, checkText, isUuid, parseHttpUrl } from '../shared/text';

/** Colours and logo a client registered; shown on the helper pages it sends users to. */
export interface ClientBranding {
  logo_url: string | null;
  /** #rrggbb */
  primary_color: string | null;
  /** #rrggbb */
  background_color: string | null;
}

export interface ClientState {
  id: string;
  display_name: string;
  branding: ClientBranding;
  redirect_uris: string[];
  /** Public clients (no secret) must use PKCE; confidential ones authenticate with a secret. */
  public_client: boolean;
  secret_hash: string | null;
  /** The resource server this client runs, if any: it may introspect tokens issued for it. */
  resource_server: string | null;
  /** The template client this one was made from (POST /v2/api/clients): that client may revoke this one's tokens. */
  template_id: string | null;
  created_at: Date;
}

/**
 * This service's own auth-code page, as a redirect URI a client may register: the page at this
 * path of whatever address the service was reached at (the hosted CLI sends its users to
 * `<auth service>/v2/web/auth-code` and pastes the code shown there).
 */
export const OWN_AUTH_CODE_PAGE = '/v2/web/auth-code';

/** Whether `redirectUri` is one the client registered; `ownAuthCodePage`: this service's auth-code page as reached now. */
export function isRegisteredRedirect(client: Pick<ClientState, 'redirect_uris'>, redirectUri: string, ownAuthCodePage?: string): boolean {
  if (client.redirect_uris.includes(redirectUri)) return true;
  return ownAuthCodePage !== undefined && redirectUri === ownAuthCodePage && client.redirect_uris.includes(OWN_AUTH_CODE_PAGE);
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

export function checkBranding(branding: Partial<ClientBranding>): ClientBranding {
  const color = (field: string, value: string | null | undefined) => {
    if (value == null) return null;
    if (!COLOR.test(value)) throw new BadRequestError(`Invalid ${field}: must be a colour like #1a2b3c`);
    return value.toLowerCase();
  };
  let logo: string | null = null;
  if (branding.logo_url != null) {
    logo = checkHttpUrl('logo_url', branding.logo_url, 2048);
    if (!logo.startsWith('https://')) throw new BadRequestError('Invalid logo_url: must be an https URL');
  }
  return {
    logo_url: logo,
    primary_color: color('primary_color', branding.primary_color),
    background_color: color('background_color', branding.background_color),
  };
}

export function checkClientDisplayName(name: string): string {
  if (name.trim() === '') throw new BadRequestError('Invalid display_name: must not be empty');
  return checkText('display_name', name, { max: 128, singleLine: true, plainDirection: true });
}

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/**
 * The grants a client may use. A public client has no secret to act as itself with; a client made
 * from a template (a native app's, POST /v2/api/clients, without credentials) exists to carry a
 * person's sign-in: it gets tokens through that person's code and refresh tokens, never as itself.
 */
export function grantTypesOf(client: Pick<ClientState, 'public_client' | 'template_id'>): GrantType[] {
  return client.public_client || client.template_id !== null ? ['authorization_code', 'refresh_token'] : ['authorization_code', 'refresh_token', 'client_credentials'];
}

export function checkRedirectUri(uri: string): string {
  if (uri === OWN_AUTH_CODE_PAGE) return uri;
  checkHttpUrl('redirect_uri', uri, 2048);
  if (new URL(uri).hash) throw new BadRequestError('Invalid redirect_uri: must not have a fragment');
  return uri;
}

/**
 * The return link of a helper page (compat-notes, area A): shown only when both a redirect URI and
 * a name are given, the URI is an absolute http(s) URL, and, when the client registered redirect
 * URIs, it is one of them. Returns null when no link may be shown. When no registered client vouches
 * for the URI, `host` is set: the page shows where the link really leads beside the name anyone
 * could have put in the query.
 */
export function safeReturnLink(
  client: ClientState | null,
  redirectUri: string | undefined,
  redirectName: string | undefined,
): { uri: string; name: string; host: string | null } | null {
  if (!redirectUri || !redirectName || redirectName.trim() === '') return null;
  // the URL parser drops leading and trailing spaces itself
  const url = parseHttpUrl(redirectUri);
  if (!url || !url.hostname) return null;
  if (client && client.redirect_uris.length > 0) {
    const registered = client.redirect_uris.some((r) => parseHttpUrl(r)?.href === url.href);
    if (!registered) return null;
  }
  const vouched = client !== null && client.redirect_uris.length > 0;
  return { uri: url.href, name: redirectName.trim().slice(0, 200), host: vouched ? null : url.host };
}

/** The client a request names, if the id is well formed and registered. */
export async function findNamedClient(clients: ClientRepository, clientId: string | undefined): Promise<ClientState | null> {
  if (!clientId || !isUuid(clientId)) return null;
  return clients.findById(clientId.toLowerCase());
}

export interface ClientRepository {
  add(client: ClientState): Promise<void>;
  findById(id: string): Promise<ClientState | null>;
  findByIds(ids: readonly string[]): Promise<ClientState[]>;
  list(): Promise<ClientState[]>;
  /** Writes back display_name, redirect_uris and secret_hash. */
  update(client: ClientState): Promise<void>;
  delete(id: string): Promise<void>;
}
