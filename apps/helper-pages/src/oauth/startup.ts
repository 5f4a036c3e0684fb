import { TOKENS } from '@xfer/server-kit';
import type { Container } from 'inversify';

/**
 * Makes the first id_token signing key if the database has none, so every instance on it signs
 * alike from the start; warns when keys are stored unencrypted.
 */
export async function prepareSigningKeys(container: Container, config: { signingKeySecret?: string }, log: (line: string) => void): Promise<void> {
  if (!config.signingKeySecret) log('warning: AUTH_SIGNING_KEY_SECRET is not set: id_token signing keys are stored unencrypted in the database');
  await container.get(TOKENS.idTokens).signingKey();
  // the hosted service's scopes and the CLI's client, once per database (as `xfer migrate` does)
  await container.get(TOKENS.admin).clients.installStandardCatalogue();
}
