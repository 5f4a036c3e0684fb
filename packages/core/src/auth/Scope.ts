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

/**
 * One scope of a requested scope string, in the hosted service's grammar: a name, optionally
 * marked `*` (optional), with the dependencies it asks for in brackets, nested:
 * `timer[*urn:...:transfer.api.globus.org:all[*data_access]] openid`.
 */
export interface RequestedScope {
  name: string;
  optional: boolean;
  dependencies: RequestedScope[];
}

/** At most this deep a nesting of brackets: deeper than any real request. */
const MAX_REQUEST_DEPTH = 8;

/** Parses a scope string of the hosted grammar; a BadRequestError names what is wrong. */
export function parseScopeString(text: string): RequestedScope[] {
  let at = 0;
  const fail = (why: string): never => {
    throw new BadRequestError(`Invalid scope string at character ${at + 1}: ${why}`);
  };
  const list = (depth: number, closing: boolean): RequestedScope[] => {
    const scopes: RequestedScope[] = [];
    for (;;) {
      while (at < text.length && /\s/.test(text[at])) at++;
      if (at >= text.length) {
        if (closing) fail('a [ is not closed');
        return scopes;
      }
      if (text[at] === ']') {
        if (!closing) fail('a ] closes nothing');
        at++;
        return scopes;
      }
      const optional = text[at] === '*';
      if (optional) at++;
      const start = at;
      while (at < text.length && !/[\s[\]*]/.test(text[at])) at++;
      const name = text.slice(start, at);
      if (name === '') fail('a scope name is missing');
      let dependencies: RequestedScope[] = [];
      if (text[at] === '[') {
        if (depth >= MAX_REQUEST_DEPTH) fail(`dependencies nested deeper than ${MAX_REQUEST_DEPTH}`);
        at++;
        dependencies = list(depth + 1, true);
        if (dependencies.length === 0) fail(`'${name.slice(0, 100)}' has empty brackets`);
      }
      scopes.push({ name: checkScopeName(name), optional, dependencies });
    }
  };
  return list(0, false);
}

export interface ScopeRepository {
  add(scope: ScopeState): Promise<void>;
  findByName(name: string): Promise<ScopeState | null>;
  findByIds(ids: readonly string[]): Promise<ScopeState[]>;
  list(): Promise<ScopeState[]>;
}
