import type { AccessRuleRepository } from '../access/AccessRule';
import type { PauseRuleRepository } from '../pause-rule/PauseRule';
import type { RoleRepository } from '../role/Role';
import type { Endpoint } from './Endpoint';
import type { EndpointRepository } from './EndpointRepository';

/** Deletes an endpoint with what is its alone (roles, access rules, pause rules), leaving its tombstone. */
export async function removeEndpoint(repos: { endpoints: EndpointRepository; roles: RoleRepository; accessRules: AccessRuleRepository; pauseRules: PauseRuleRepository }, endpoint: Endpoint, now: Date): Promise<void> {
  await repos.roles.deleteForEndpoint(endpoint.id);
  await repos.accessRules.deleteForEndpoint(endpoint.id);
  await repos.pauseRules.deleteForEndpoint(endpoint.id);
  await repos.endpoints.delete(endpoint, endpoint.tombstone(now));
}
