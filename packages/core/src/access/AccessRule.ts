import { BadRequestError, InvalidPathError } from '../shared/errors';
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

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fraction]]` and `Z` or `±HH:MM` (none: UTC). */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The first instant past year 9999, where ISO 8601's four-digit years end. */
const END_OF_YEAR_9999 = Date.UTC(10000, 0, 1);

/**
 * An ISO 8601 date or datetime as an instant, or null when it is not one a calendar has: each
 * part is checked as written (February 30 is refused, never rolled into March), and the instant,
 * offset applied, must fall within years 0001-9999.
 */
export function parseIsoInstant(value: string): Date | null {
  const m = ISO_INSTANT.exec(value);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (year < 1 || daysInMonth === undefined || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  const offset = m[8];
  let offsetMinutes = 0;
  if (offset && offset !== 'Z') {
    const [h, min] = offset.slice(1).split(':').map(Number);
    if (h > 23 || min > 59) return null;
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (h * 60 + min);
  }
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, second, millis);
  return utc.getTime() < END_OF_YEAR_9999 && utc.getUTCFullYear() >= 1 ? utc : null;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
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
