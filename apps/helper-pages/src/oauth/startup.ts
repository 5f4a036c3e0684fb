import type { CoreServices } from '@xfer/core';

/**
 * Makes the first id_token signing key if the database has none, so every instance on it signs
 * alike from the start; warns when keys are stored unencrypted.
 */
export async function prepareSigningKeys(services: Pick<CoreServices, 'idTokens' | 'admin'>, config: { signingKeySecret?: string }, log: (line: string) => void): Promise<void> {
  if (!config.signingKeySecret) log('warning: AUTH_SIGNING_KEY_SECRET is not set: id_token signing keys are stored unencrypted in the database');
  await services.idTokens.signingKey();
  // the hosted service's scopes and the CLI's client, once per database (as `xfer migrate` does)
  await services.admin.clients.installStandardCatalogue();
}
