import { randomBytes } from 'node:crypto';
import { CONSOLE_CLIENT, type Administration } from '@xfer/core';
import { consoleRedirectUris } from './config';

/**
 * Registers the console as a confidential client at its address, with its secret (a new random one
 * when none is configured: then only this process knows it). Returns its credentials.
 */
export async function registerConsoleClient(admin: Administration, publicUrl: string, secret?: string): Promise<{ clientId: string; clientSecret: string }> {
  const clientSecret = secret ?? randomBytes(32).toString('base64url');
  await admin.clients.registerFirstPartyClient(CONSOLE_CLIENT, { redirect_uris: consoleRedirectUris(publicUrl), secret: clientSecret });
  return { clientId: CONSOLE_CLIENT.id, clientSecret };
}
