import { IdentitySet, type IdentityState } from '../auth/Identity';
import type { Endpoint } from '../endpoint/Endpoint';
import type { PrincipalType } from '../role/Role';
import { EndpointNotFoundError, ResourceNotFoundError } from '../shared/errors';
import type { Repositories } from '../shared/UnitOfWork';

/** Operator commands name things as people do: identities by username, groups by name, endpoints by id. */

export async function identityNamed(repos: Pick<Repositories, 'identities'>, username: string): Promise<IdentityState> {
  const identity = await repos.identities.findByUsername(username);
  if (!identity) throw new ResourceNotFoundError(`No such identity '${username}'`);
  return identity;
}

export async function identitySetOf(repos: Pick<Repositories, 'identities'>, username: string): Promise<IdentitySet> {
  return new IdentitySet(await repos.identities.listSet((await identityNamed(repos, username)).set_id));
}

export async function groupNamed(repos: Pick<Repositories, 'groups'>, name: string) {
  const g = await repos.groups.findByName(name);
  if (!g) throw new ResourceNotFoundError(`No such group '${name}'`);
  return g;
}

export async function endpointWithId(repos: Pick<Repositories, 'endpoints'>, id: string): Promise<Endpoint> {
  const endpoint = await repos.endpoints.findById(id.toLowerCase());
  if (!endpoint) throw new EndpointNotFoundError(id);
  return endpoint;
}

/** A username, or a group name: identities win when both exist. */
export async function principalNamed(repos: Pick<Repositories, 'identities' | 'groups'>, name: string): Promise<{ type: PrincipalType; id: string }> {
  const identity = await repos.identities.findByUsername(name);
  if (identity) return { type: 'identity', id: identity.id };
  const group = await repos.groups.findByName(name);
  if (group) return { type: 'group', id: group.id };
  throw new ResourceNotFoundError(`No identity or group named '${name}'`);
}

/** A subscription by name or id. */
export async function subscriptionNamed(repos: Pick<Repositories, 'subscriptions'>, subscription: string) {
  const s = (await repos.subscriptions.findByName(subscription)) ?? (await repos.subscriptions.findById(subscription));
  if (!s) throw new ResourceNotFoundError(`No such subscription '${subscription}'`);
  return s;
}
