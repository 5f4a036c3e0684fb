import { InvalidFieldError } from '../shared/errors';
import { Glob } from '../shared/glob';
import { checkText } from '../shared/text';

/**
 * A storage gateway's data access policies as GCS documents them: which local accounts may use it
 * (users and groups allowed and denied) and which paths they may read, write or not see
 * (`path_restrictions#1.0.0`).
 */

export interface PathRestrictions {
  DATA_TYPE: 'path_restrictions#1.0.0';
  read: string[];
  read_write: string[];
  none: string[];
}

export type PathAccess = 'rw' | 'r' | 'none';

const RESTRICTION_KEYS = ['read', 'read_write', 'none'] as const;
const MAX_PATTERNS = 100;

/** A path_restrictions#1.0.0 document, checked: an unknown key, a wrong DATA_TYPE or a pattern that is no absolute path named. */
export function checkPathRestrictions(value: unknown, field = 'restrict_paths'): PathRestrictions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidFieldError(field, 'must be a path_restrictions#1.0.0 document');
  const document = value as Record<string, unknown>;
  for (const key of Object.keys(document)) {
    if (key !== 'DATA_TYPE' && !(RESTRICTION_KEYS as readonly string[]).includes(key)) throw new InvalidFieldError(`${field}.${key}`, 'is no field of path_restrictions#1.0.0 (read, read_write, none)');
  }
  if (document.DATA_TYPE !== undefined && document.DATA_TYPE !== 'path_restrictions#1.0.0') throw new InvalidFieldError(`${field}.DATA_TYPE`, "must be 'path_restrictions#1.0.0'");
  const list = (key: (typeof RESTRICTION_KEYS)[number]): string[] => {
    const patterns = document[key] ?? [];
    if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string')) throw new InvalidFieldError(`${field}.${key}`, 'must be a list of paths');
    if (patterns.length > MAX_PATTERNS) throw new InvalidFieldError(`${field}.${key}`, `at most ${MAX_PATTERNS} paths`);
    return patterns.map((pattern, i) => {
      checkText(`${field}.${key}[${i}]`, pattern, { max: 1024, singleLine: true });
      if (!/^(\/|~|\$HOME)/.test(pattern)) throw new InvalidFieldError(`${field}.${key}[${i}]`, 'must be an absolute path (/..., ~ or $HOME first)');
      return pattern;
    });
  };
  return { DATA_TYPE: 'path_restrictions#1.0.0', read: list('read'), read_write: list('read_write'), none: list('none') };
}

/** Where a pattern's `~`, `$HOME` and `$USER` point for this account. */
export interface RestrictionContext {
  home: string;
  user: string;
}

/** Ties between patterns of equal length: the narrower access wins. */
const RANK: Record<PathAccess, number> = { none: 3, r: 2, rw: 1 };

/**
 * What an account may do at `path` (an endpoint path, `/` its root) under `restrictions`: none set,
 * `rw` (the operating system decides); else the access of the longest pattern matching the path or
 * one of its ancestors (a pattern covers its subtree), `none` where no pattern matches.
 */
export function pathAccess(restrictions: PathRestrictions | null, path: string, context: RestrictionContext): PathAccess {
  if (restrictions === null) return 'rw';
  const ancestry = ancestorsOf(path);
  let best: { length: number; access: PathAccess } | null = null;
  for (const [key, access] of [['read_write', 'rw'], ['read', 'r'], ['none', 'none']] as const) {
    for (const raw of restrictions[key]) {
      const pattern = interpolated(raw, context);
      const glob = Glob.compile(pattern, { classes: true });
      if (!ancestry.some((candidate) => glob.matches(candidate))) continue;
      const length = Array.from(pattern).length;
      if (best === null || length > best.length || (length === best.length && RANK[access] > RANK[best.access])) best = { length, access };
    }
  }
  return best?.access ?? 'none';
}

/** `~` and `$HOME` (the account's home), `$USER` (its name), in a pattern. */
function interpolated(pattern: string, context: RestrictionContext): string {
  const home = context.home.replace(/\/+$/, '') || '/';
  let result = pattern.replace(/^(~|\$HOME)(?=\/|$)/, home);
  result = result.replaceAll('$USER', context.user);
  return result.length > 1 ? result.replace(/\/+$/, '') : result;
}

/** The path and each of its ancestors, itself first: `/a/b` gives `/a/b`, `/a`, `/`. */
function ancestorsOf(path: string): string[] {
  const found = [path];
  for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) found.push(path.slice(0, at));
  if (path !== '/') found.push('/');
  return found;
}

/** Who may use a gateway: allow and deny lists of local accounts and groups. */
export interface AccountPolicy {
  users_allow: readonly string[];
  users_deny: readonly string[];
  groups_allow: readonly string[];
  groups_deny: readonly string[];
}

/** A local account as its machine knows it: its name and its groups (primary and supplementary). */
export interface LocalAccount {
  name: string;
  groups: readonly string[];
}

/**
 * Whether the policy admits the account, as GCS documents the lists: `users_deny` always wins;
 * `groups_deny` wins unless the user is allowed by name; with allow lists set, only the users
 * they name or the members of the groups they name pass. Null when admitted, else why not.
 */
export function refusalOf(policy: AccountPolicy, account: LocalAccount): string | null {
  const inGroup = (groups: readonly string[]) => account.groups.some((group) => groups.includes(group));
  const allowedByName = policy.users_allow.includes(account.name);
  if (policy.users_deny.includes(account.name)) return `the account '${account.name}' is denied access (users_deny)`;
  if (!allowedByName && inGroup(policy.groups_deny)) return `a group of the account '${account.name}' is denied access (groups_deny)`;
  const restricted = policy.users_allow.length > 0 || policy.groups_allow.length > 0;
  if (restricted && !allowedByName && !inGroup(policy.groups_allow)) return `the account '${account.name}' is not among the users or groups allowed (users_allow, groups_allow)`;
  return null;
}
