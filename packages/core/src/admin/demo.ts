import { randomBytes } from 'node:crypto';
import { TRANSFER_SCOPE } from '../auth/AuthenticationService';
import { OWN_AUTH_CODE_PAGE } from '../auth/Client';
import { VIEW_IDENTITY_SET_SCOPE } from '../auth/IdToken';
import type { CoreServices } from '../services';

export const DEMO_USERNAME = 'alice';
export const DEMO_LINKED_USERNAME = 'alice@orcid.example.org';
const PORTAL_URL = 'https://portal.example.org/';

/** Scopes of the demo, in words a user understands. */
export const DEMO_SCOPES = {
  transfer: { name: TRANSFER_SCOPE, description: 'Manage your endpoints and file transfers' },
  dataAccess: { name: 'urn:xfer:scope:storage.example.org:data_access', description: 'Read and write files on your lab storage' },
  profile: { name: 'openid', description: 'Know who you are: your name, e-mail address and identities' },
};

/** The OpenID Connect scopes beside `openid`, as the hosted service names them. */
export const OPENID_SCOPES = [
  { name: 'profile', description: 'Know your name, username and organization' },
  { name: 'email', description: 'Know your e-mail address' },
  { name: VIEW_IDENTITY_SET_SCOPE, description: 'Know which identities you linked' },
];

/**
 * First start: the demo identity `alice` (with a linked identity, a subscription, a sign-in
 * password and a token), a demo client with branding, and consents she gave it. Later starts
 * leave the data alone (tokens and passwords are stored hashed, so they cannot be shown again).
 */
export async function bootstrapDemo(services: CoreServices, apiUrl: string, authUrl: string): Promise<string[]> {
  const existing = await services.authentication.identityByUsername(DEMO_USERNAME);
  if (existing) {
    return [
      `Demo identity '${DEMO_USERNAME}' exists already.`,
      `  new API token:      npx xfer token issue ${DEMO_USERNAME}`,
      `  new password:       echo 'a new password' | npx xfer identity set-password ${DEMO_USERNAME}`,
      `  helper pages:       ${authUrl}/v2/web/identities`,
    ];
  }
  const { admin } = services;
  await admin.identities.addIdentity({ username: DEMO_USERNAME, name: 'Alice Example', email: 'alice@example.org', organization: 'Example University' });
  await admin.identities.addIdentity({ username: DEMO_LINKED_USERNAME, name: 'Alice Example', email: null, organization: 'ORCID' });
  await admin.identities.linkIdentities(DEMO_USERNAME, DEMO_LINKED_USERNAME);
  const password = randomBytes(9).toString('base64url');
  await admin.identities.setPassword(DEMO_USERNAME, password);
  const subscription = await admin.subscriptions.addSubscription('Demo subscription', [DEMO_USERNAME], [DEMO_USERNAME]);
  const { token } = await admin.tokens.issueToken(DEMO_USERNAME);

  const { client } = await admin.clients.addClient({
    display_name: 'Example Research Portal',
    redirect_uris: [PORTAL_URL],
    branding: { primary_color: '#0b5d3b', background_color: '#f3f7f5' },
  });
  // the standard catalogue (installed at start) has some of these already
  const installed = new Set((await admin.clients.listScopes()).map((s) => s.name));
  const addScope = async (name: string, description: string, options?: { dependsOn: string[] }) => {
    if (!installed.has(name)) await admin.clients.addScope(name, description, options);
  };
  await addScope(DEMO_SCOPES.dataAccess.name, DEMO_SCOPES.dataAccess.description);
  await addScope(DEMO_SCOPES.profile.name, DEMO_SCOPES.profile.description);
  await addScope(DEMO_SCOPES.transfer.name, DEMO_SCOPES.transfer.description, { dependsOn: [DEMO_SCOPES.dataAccess.name] });
  // what the hosted service's SDK (globus_sdk.UserApp) asks for at every sign-in
  for (const scope of OPENID_SCOPES) await addScope(scope.name, scope.description);
  const transfer = await admin.tokens.grantConsent(DEMO_USERNAME, client.id, DEMO_SCOPES.transfer.name);
  await admin.tokens.grantConsent(DEMO_USERNAME, client.id, DEMO_SCOPES.dataAccess.name, transfer);
  await admin.tokens.grantConsent(DEMO_USERNAME, client.id, DEMO_SCOPES.profile.name);

  // a native app as the hosted service's CLI is one: public (PKCE), shown its code on an auth-code page
  const { client: nativeApp } = await admin.clients.addClient({ display_name: 'xfer demo native app', redirect_uris: [`${authUrl}${OWN_AUTH_CODE_PAGE}`] });

  const query = `client_id=${client.id}&redirect_uri=${encodeURIComponent(PORTAL_URL)}&redirect_name=${encodeURIComponent('Example Research Portal')}`;
  return [
    `Demo identity '${DEMO_USERNAME}' created (linked: ${DEMO_LINKED_USERNAME}), with subscription ${subscription}.`,
    `Access token for ${DEMO_USERNAME}: ${token}`,
    `Try: curl -H "Authorization: Bearer ${token}" -d '{"display_name":"My first endpoint","DATA":[{"hostname":"gridftp.example.org"}]}' ${apiUrl}/v0.10/endpoint`,
    `Helper pages: sign in as ${DEMO_USERNAME} with password ${password}`,
    `  identities: ${authUrl}/v2/web/identities?${query}`,
    `  consents:   ${authUrl}/v2/web/consents?${query}`,
    `  logout:     ${authUrl}/v2/web/logout?${query}`,
    `OAuth 2.0: demo native app (public client, PKCE) ${nativeApp.id}, redirect URI ${authUrl}${OWN_AUTH_CODE_PAGE}: see the README's "Sign in with OAuth 2.0"`,
  ];
}
