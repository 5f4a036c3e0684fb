import { BadRequestError } from '../shared/errors';
import { checkText } from '../shared/text';

/** A scope a client may ask for, with the words users read on the consents page. */
export interface ScopeState {
  id: string;
  /** e.g. urn:globus:auth:scope:transfer.api.globus.org:all */
  name: string;
  description: string;
  /** The service a token with this scope is for; tokens are issued one per resource server. */
  resource_server: string;
  /** Scopes the client may use on the user's behalf downstream; consented together, shown as a tree. */
  dependent_scope_ids: string[];
  created_at: Date;
}

/** The hosted service's own resource server: where sign-in scopes such as openid belong. */
export const AUTH_RESOURCE_SERVER = 'auth.globus.org';

/**
 * The resource server a scope name implies, as the hosted service names them:
 * `urn:globus:auth:scope:<server>:<name>` and `https://auth.globus.org/scopes/<server>/<name>`;
 * anything else (openid, email, profile) belongs to the authorization service itself.
 */
export function resourceServerOf(name: string): string {
  const urn = /^urn:[^:]+:auth:scope:([^:]+):/.exec(name) ?? /^urn:[^:]+:scope:([^:]+):/.exec(name);
  if (urn) return urn[1];
  const url = /^https:\/\/[^/]+\/scopes\/([^/]+)\//.exec(name);
  if (url) return url[1];
  return AUTH_RESOURCE_SERVER;
}

export function checkResourceServer(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,255}$/.test(name)) throw new BadRequestError(`Invalid resource server '${name}'`);
  return name;
}

export function checkScopeName(name: string): string {
  if (!/^[A-Za-z0-9:._\-/+*#]{1,512}$/.test(name)) {
    throw new BadRequestError(`Invalid scope name '${name}'`);
  }
  return name;
}

export function checkScopeDescription(description: string): string {
  return checkText('description', description, { max: 1024, singleLine: true });
}

export interface ScopeRepository {
  add(scope: ScopeState): Promise<void>;
  findByName(name: string): Promise<ScopeState | null>;
  findByIds(ids: readonly string[]): Promise<ScopeState[]>;
  list(): Promise<ScopeState[]>;
}
