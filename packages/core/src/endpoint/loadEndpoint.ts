import type { Principal } from '../auth/Principal';
import { effectiveRoles, type EndpointRole } from '../role/Role';
import { EndpointDeletedError, EndpointNotFoundError } from '../shared/errors';
import { hasControlCharacters, isUuid } from '../shared/text';
import type { Endpoint } from './Endpoint';
import type { EndpointRepository } from './EndpointRepository';

export interface LoadedEndpoint {
  endpoint: Endpoint;
  roles: EndpointRole[];
}

export interface LoadOptions {
  /** The deprecated canonical name may stand for the id (get and delete only); by default only an id names an endpoint. */
  canonicalName?: boolean;
  /** Lock the endpoint for the rest of the transaction (writes). */
  forUpdate?: boolean;
}

/** The endpoint named by `xid` (an id, or where allowed a canonical name), or why there is none. */
function endpointKey(xid: string, options: LoadOptions): { id: string } | { canonical_name: string } {
  if (isUuid(xid)) return { id: xid.toLowerCase() };
  // Stryker disable next-line StringLiteral,MethodExpression: every canonical name holds a '#', so a key without one finds nothing either
  if (options.canonicalName && xid.includes('#') && !hasControlCharacters(xid)) return { canonical_name: xid };
  throw new EndpointNotFoundError(xid);
}

/**
 * The endpoint `xid` with the caller's effective roles on it, in one read; a deleted endpoint is
 * EndpointDeletedError, an unknown one EndpointNotFoundError. Every use case that acts on an
 * endpoint starts here.
 */
export async function loadEndpoint(repos: { endpoints: EndpointRepository }, caller: Principal, xid: string, options: LoadOptions = {}): Promise<LoadedEndpoint> {
  const key = endpointKey(xid, options);
  const found = await repos.endpoints.findWithRolesOf(key, caller.principalIds, { forUpdate: options.forUpdate ?? false });
  if (!found) {
    if (await repos.endpoints.findTombstone(key)) throw new EndpointDeletedError(xid);
    throw new EndpointNotFoundError(xid);
  }
  return { endpoint: found.endpoint, roles: effectiveRoles(found.endpoint, caller, found.assignments) };
}

/** A share's host (by its id) with the caller's effective roles on it; none when there is no host id or the host is gone. */
export async function hostRolesOf(repos: { endpoints: EndpointRepository }, caller: Principal, hostId: string | null): Promise<{ host: Endpoint | null; hostRoles: EndpointRole[] }> {
  // Stryker disable next-line ConditionalExpression: a null id finds nothing either; this only saves the read
  if (hostId === null) return { host: null, hostRoles: [] };
  const found = await repos.endpoints.findWithRolesOf({ id: hostId }, caller.principalIds);
  return found ? { host: found.endpoint, hostRoles: effectiveRoles(found.endpoint, caller, found.assignments) } : { host: null, hostRoles: [] };
}
