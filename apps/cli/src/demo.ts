import type { CoreServices } from '@xfer/core';

export const DEMO_USERNAME = 'alice';

/**
 * First start: the demo identity `alice` with a subscription of her own and a token. Later starts
 * leave the data alone (only token hashes are stored, so an old token cannot be shown again).
 */
export async function bootstrapDemo(services: CoreServices, apiUrl: string): Promise<string[]> {
  const existing = await services.authentication.identityByUsername(DEMO_USERNAME);
  if (existing) {
    return [
      `Demo identity '${DEMO_USERNAME}' exists already. A new token: npx xfer token issue ${DEMO_USERNAME}`,
    ];
  }
  await services.admin.addIdentity({
    username: DEMO_USERNAME,
    name: 'Alice Example',
    email: 'alice@example.org',
    organization: 'Example University',
  });
  const subscription = await services.admin.addSubscription('Demo subscription', [DEMO_USERNAME]);
  const { token } = await services.admin.issueToken(DEMO_USERNAME);
  return [
    `Demo identity '${DEMO_USERNAME}' created, with subscription ${subscription}.`,
    `Access token for ${DEMO_USERNAME}: ${token}`,
    `Try: curl -H "Authorization: Bearer ${token}" -d '{"display_name":"My first endpoint","DATA":[{"hostname":"gridftp.example.org"}]}' ${apiUrl}/v0.10/endpoint`,
  ];
}
