import { BadRequestError, InvalidPathError } from '../shared/errors';
import { parseIsoInstant } from '../shared/dates';
import { checkEmail, checkText, hasControlCharacters } from '../shared/text';

export type AccessPrincipalType = 'identity' | 'group' | 'all_authenticated_users' | 'anonymous';
export const ACCESS_PRINCIPAL_TYPES: readonly AccessPrincipalType[] = ['identity', 'group', 'all_authenticated_users', 'anonymous'];
export type AccessPermissions = 'r' | 'rw';

/** An access rule of a share (catalogue features 4): who may read or write below a path. */
export interface AccessRuleState {
  id: string;
  endpoint_id: string;
  principal_type: AccessPrincipalType;
  /** An identity or group id; "" for all_authenticated_users and anonymous. */
  principal: string;
  /** Absolute within the share, ending in "/". */
  path: string;
  permissions: AccessPermissions;
  notify_email: string | null;
  notify_message: string | null;
  create_time: Date;
  /** Past it the rule grants nothing. */
  expiration_date: Date | null;
}

export const MAX_ACCESS_RULES = 1000;
const MAX_PATH = 2000;

/**
 * A path as rules store it: absolute, no `.` or `..` segments, at most 2000 characters, ending in
 * "/", one path one spelling: repeated slashes are one (`/a//b/` is `/a/b/`, as a filesystem reads
 * it) and the text is in Unicode NFC (an "é" typed as one code point or as "e" and an accent is one
 * name to a person; macOS clients send the second).
 */
export function checkAccessPath(path: string): string {
  if (!path.startsWith('/')) throw new InvalidPathError(`Invalid path '${path.slice(0, 100)}': it must be absolute (start with /)`);
  if (path.length > MAX_PATH) throw new InvalidPathError(`Invalid path: at most ${MAX_PATH} characters`);
  if (hasControlCharacters(path)) throw new InvalidPathError('Invalid path: control characters are not allowed');
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) throw new InvalidPathError(`Invalid path '${path.slice(0, 100)}': no . or .. segments`);
  const canonical = path.normalize('NFC').replace(/\/{2,}/g, '/');
  return canonical.endsWith('/') ? canonical : `${canonical}/`;
}

export function checkPermissions(permissions: string): AccessPermissions {
  if (permissions !== 'r' && permissions !== 'rw') throw new BadRequestError(`Invalid permissions '${permissions}': must be r or rw`);
  return permissions;
}

/** A rule's permissions for its principal: anonymous users may only read. */
export function checkPermissionsFor(principalType: AccessPrincipalType, permissions: string): AccessPermissions {
  const checked = checkPermissions(permissions);
  if (principalType === 'anonymous' && checked !== 'r') throw new BadRequestError("Invalid permissions 'rw' for anonymous: anonymous users may only read (r)");
  return checked;
}

/** A date (`YYYY-MM-DD`, midnight UTC) or an ISO datetime, one a calendar has, in the future and before year 10000. */
export function checkExpiration(value: string, now: Date): Date {
  const date = parseIsoInstant(value);
  if (date === null) throw new BadRequestError(`Invalid expiration_date '${value.slice(0, 40)}': a date or an ISO datetime that exists, up to year 9999`);
  if (date.getTime() <= now.getTime()) throw new BadRequestError('Invalid expiration_date: it must be in the future');
  return date;
}

export interface NewAccessRule {
  principal_type: string;
  principal: string;
  path: string;
  permissions: string;
  notify_email?: string | null;
  notify_message?: string | null;
  expiration_date?: string | null;
}

/** Checks a new rule's values (the principal's existence is the use case's to check). */
export function newAccessRule(input: NewAccessRule, ctx: { id: string; endpointId: string; now: Date }): AccessRuleState {
  if (!(ACCESS_PRINCIPAL_TYPES as readonly string[]).includes(input.principal_type)) {
    throw new BadRequestError(`Invalid principal_type '${input.principal_type}': must be one of ${ACCESS_PRINCIPAL_TYPES.join(', ')}`);
  }
  const type = input.principal_type as AccessPrincipalType;
  const everyone = type === 'all_authenticated_users' || type === 'anonymous';
  if (everyone && input.principal !== '') throw new BadRequestError(`Invalid principal: must be "" for ${type}`);
  return {
    id: ctx.id,
    endpoint_id: ctx.endpointId,
    principal_type: type,
    principal: everyone ? '' : input.principal.toLowerCase(),
    path: checkAccessPath(input.path),
    permissions: checkPermissionsFor(type, input.permissions),
    notify_email: input.notify_email == null ? null : checkEmail('notify_email', input.notify_email),
    notify_message: input.notify_message == null ? null : checkText('notify_message', input.notify_message, { max: 2048 }),
    create_time: ctx.now,
    expiration_date: input.expiration_date == null ? null : checkExpiration(input.expiration_date, ctx.now),
  };
}

/** Whether a rule grants anything at `now`. */
export function isAccessRuleLive(rule: Pick<AccessRuleState, 'expiration_date'>, now: Date): boolean {
  return rule.expiration_date === null || rule.expiration_date.getTime() > now.getTime();
}

export interface AccessRuleRepository {
  add(rule: AccessRuleState): Promise<void>;
  listForEndpoint(endpointId: string): Promise<AccessRuleState[]>;
  findById(id: string): Promise<AccessRuleState | null>;
  /** Writes back permissions and expiration_date. */
  update(rule: AccessRuleState): Promise<void>;
  delete(id: string): Promise<void>;
  deleteForEndpoint(endpointId: string): Promise<void>;
  /** Ids of the shares on which a live rule grants one of these principals (or all authenticated users). */
  sharesGranting(principalIds: readonly string[], now: Date): Promise<string[]>;
}
