import type { Principal } from '../auth/Principal';
import type { Endpoint } from '../endpoint/Endpoint';
import { mappedPolicyOf, policyDigest, type ActingAs } from '../node/Node';
import type { RepositoriesOf } from '../shared/UnitOfWork';
import { IdentityMappingError, mapIdentities } from './IdentityMapping';

type Repos = RepositoriesOf<'storageGateways' | 'identities'>['repositories'];

/** The hosted words of an identity set that maps to no account. */
export const NO_VALID_USERNAME = 'Identity set contains an identity from an allowed domain, but it does not map to a valid username for this connector';

/**
 * The local account a mapped collection's files are used as, where its storage gateway maps
 * identities: the caller's identity set mapped (a guest collection: its creator's, for every
 * reader), with the digest of the gateway's policy; `refused` with the hosted words where it maps to
 * none. Null where nothing maps identities (`host`: the endpoint whose storage holds the files).
 */
export async function mappedAccountOf(repos: Repos, endpoint: Endpoint, host: Endpoint, caller: Principal): Promise<ActingAs | { refused: string } | null> {
  const gatewayId = host.collectionType === 'mapped' ? host.collection!.storage_gateway_id : null;
  const gateway = gatewayId === null ? null : await repos.storageGateways.findById(gatewayId);
  if (!gateway || gateway.settings.identity_mappings.length === 0) return null;
  let identities = caller.identities.length > 0 ? caller.identities : [caller.primary];
  if (endpoint.kind === 'shared') {
    const creator = await repos.identities.findById(endpoint.ownerId);
    identities = creator ? await repos.identities.listSet(creator.set_id) : [];
  }
  try {
    const account = mapIdentities(gateway.settings.identity_mappings, identities.filter((identity) => identity.status === 'used' || identity.status === 'private'), gateway.settings.allowed_domains);
    return account === null ? { refused: NO_VALID_USERNAME } : { account, policy: policyDigest(mappedPolicyOf(gateway.settings)) };
  } catch (error) {
    if (error instanceof IdentityMappingError) return { refused: `Identity mapping failed: ${error.message}` };
    throw error;
  }
}
