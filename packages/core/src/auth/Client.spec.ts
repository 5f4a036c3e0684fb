import { BadRequestError } from '../shared/errors';
import { checkBranding, checkClientDisplayName, checkRedirectUri, findNamedClient, grantTypesOf, isRegisteredRedirect, OWN_AUTH_CODE_PAGE, safeReturnLink, type ClientRepository, type ClientState } from './Client';

const client = (redirect_uris: string[]): ClientState => ({
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  display_name: 'Portal',
  branding: { logo_url: null, primary_color: null, background_color: null },
  redirect_uris,
  public_client: true,
  secret_hash: null,
  resource_server: null,
  template_id: null,
  created_at: new Date(0),
});

describe('client values', () => {
  it('takes branding colours as #rrggbb (stored lower case) and logos over https only', () => {
    expect(checkBranding({})).toEqual({ logo_url: null, primary_color: null, background_color: null });
    expect(checkBranding({ primary_color: '#AABBCC', background_color: '#001122', logo_url: 'https://example.org/logo.png' })).toEqual({
      primary_color: '#aabbcc',
      background_color: '#001122',
      logo_url: 'https://example.org/logo.png',
    });
    expect(() => checkBranding({ primary_color: 'red' })).toThrow(/primary_color/);
    expect(() => checkBranding({ background_color: '#abc' })).toThrow(/background_color/);
    expect(() => checkBranding({ primary_color: '#aabbccdd' })).toThrow(BadRequestError);
    expect(() => checkBranding({ logo_url: 'http://example.org/logo.png' })).toThrow('Invalid logo_url: must be an https URL');
    expect(() => checkBranding({ logo_url: 'logo.png' })).toThrow('Invalid logo_url: must be an absolute http or https URL');
    expect(() => checkBranding({ logo_url: `https://example.org/${'a'.repeat(2048)}` })).toThrow(/at most 2048/);
  });

  it('takes a display name that is not blank, on one line, of at most 128 characters', () => {
    expect(checkClientDisplayName('Portal')).toBe('Portal');
    expect(() => checkClientDisplayName('   ')).toThrow('Invalid display_name: must not be empty');
    expect(() => checkClientDisplayName('a\nb')).toThrow('Invalid display_name: must not contain new lines');
    expect(checkClientDisplayName('a'.repeat(128))).toHaveLength(128);
    expect(() => checkClientDisplayName('a'.repeat(129))).toThrow(/at most 128/);
  });

  it('takes redirect URIs that are absolute http(s) URLs without a fragment', () => {
    expect(checkRedirectUri('https://app.example.org/cb?x=1')).toBe('https://app.example.org/cb?x=1');
    expect(() => checkRedirectUri('https://app.example.org/cb#here')).toThrow('Invalid redirect_uri: must not have a fragment');
    expect(() => checkRedirectUri('app://callback')).toThrow('Invalid redirect_uri: must be an absolute http or https URL');
  });
});

describe("a client's registered redirect URIs", () => {
  const page = 'https://auth.example.org/v2/web/auth-code';

  it('take this service\'s own auth-code page by its path, whatever address the service has', () => {
    expect(checkRedirectUri(OWN_AUTH_CODE_PAGE)).toBe(OWN_AUTH_CODE_PAGE);
    expect(() => checkRedirectUri('/v2/web/other')).toThrow(BadRequestError);
  });

  it('match a redirect exactly, or the auth-code page as reached now when the client registered its path', () => {
    const cli = { redirect_uris: [OWN_AUTH_CODE_PAGE] };
    const app = { redirect_uris: ['https://app.example.org/cb'] };
    expect(isRegisteredRedirect(app, 'https://app.example.org/cb')).toBe(true);
    expect(isRegisteredRedirect(app, 'https://app.example.org/cb', page)).toBe(true);
    expect(isRegisteredRedirect(app, 'https://app.example.org/other', page)).toBe(false);
    expect(isRegisteredRedirect(cli, page, page)).toBe(true);
    expect(isRegisteredRedirect(cli, OWN_AUTH_CODE_PAGE)).toBe(true);
    // the page of another address, or without knowing this one's, is not this service's page
    expect(isRegisteredRedirect(cli, 'https://elsewhere.example.org/v2/web/auth-code', page)).toBe(false);
    expect(isRegisteredRedirect(cli, page)).toBe(false);
    // a client that did not register the page's path does not get it
    expect(isRegisteredRedirect(app, page, page)).toBe(false);
  });
});

describe('the return link of a helper page', () => {
  it('needs both a URI and a non-blank name', () => {
    expect(safeReturnLink(null, undefined, 'Portal')).toBeNull();
    expect(safeReturnLink(null, 'https://app.example.org/', undefined)).toBeNull();
    expect(safeReturnLink(null, 'https://app.example.org/', '  ')).toBeNull();
  });

  it('takes absolute http(s) URIs only', () => {
    expect(safeReturnLink(null, 'javascript:alert(1)', 'Portal')).toBeNull();
    expect(safeReturnLink(null, '/relative', 'Portal')).toBeNull();
    expect(safeReturnLink(null, '  https://app.example.org/back  ', ' Portal ')).toEqual({ uri: 'https://app.example.org/back', name: 'Portal', host: 'app.example.org' });
  });

  it("shows a registered client's own URIs without the host, anything else it registered nothing like not at all", () => {
    const portal = client(['https://app.example.org/back']);
    expect(safeReturnLink(portal, 'https://app.example.org/back', 'Portal')).toEqual({ uri: 'https://app.example.org/back', name: 'Portal', host: null });
    expect(safeReturnLink(portal, 'https://evil.example.org/back', 'Portal')).toBeNull();
    // any one of the registered URIs, even beside one that no longer parses
    const two = client(['not a url', 'https://app.example.org/one', 'https://app.example.org/two']);
    expect(safeReturnLink(two, 'https://app.example.org/two', 'Portal')).toEqual({ uri: 'https://app.example.org/two', name: 'Portal', host: null });
    // a client that registered no URIs vouches for nothing: the host is shown
    expect(safeReturnLink(client([]), 'https://evil.example.org/', 'Portal')).toEqual({ uri: 'https://evil.example.org/', name: 'Portal', host: 'evil.example.org' });
  });

  it('cuts the name to 200 characters', () => {
    expect(safeReturnLink(null, 'https://app.example.org/', 'n'.repeat(300))?.name).toHaveLength(200);
  });
});

describe('the client a request names', () => {
  it('is looked up only by a well-formed id, in lower case', async () => {
    const portal = client([]);
    const clients = { findById: jest.fn(async (id: string) => (id === portal.id ? portal : null)) } as unknown as ClientRepository;
    expect(await findNamedClient(clients, portal.id.toUpperCase())).toBe(portal);
    expect(await findNamedClient(clients, undefined)).toBeNull();
    expect(await findNamedClient(clients, '')).toBeNull();
    expect(await findNamedClient(clients, 'not-a-uuid')).toBeNull();
    // a stored id column of type uuid would refuse the others
    expect(clients.findById).toHaveBeenCalledTimes(1);
  });
});

describe('the grants a client may use', () => {
  it('lets only a confidential client of its own (not one made from a template) act as itself', () => {
    expect(grantTypesOf({ public_client: false, template_id: null })).toEqual(['authorization_code', 'refresh_token', 'client_credentials']);
    expect(grantTypesOf({ public_client: false, template_id: '95fdeba8-fac2-42bd-a357-e068d82ff78e' })).toEqual(['authorization_code', 'refresh_token']);
    expect(grantTypesOf({ public_client: true, template_id: null })).toEqual(['authorization_code', 'refresh_token']);
  });

  it('refuses a display name with bidirectional controls, which would show it otherwise than it is', () => {
    for (const control of ['\u202a', '\u202e', '\u2066', '\u2069']) expect(() => checkClientDisplayName(`Portal ${control}x`)).toThrow('must not contain bidirectional control characters');
    expect(checkClientDisplayName('Portail \u00e9t\u00e9 \u05e9\u05dc\u05d5\u05dd')).toBe('Portail \u00e9t\u00e9 \u05e9\u05dc\u05d5\u05dd');
  });
});
