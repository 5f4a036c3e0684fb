import { InvalidFieldError } from './errors';

/** Field guards shared by every aggregate that takes text from a client. */
export interface TextRule {
  max: number;
  singleLine?: boolean;
  ascii?: boolean;
  /** A name shown to people as a trust decision (a client's, on the consent screen): no bidirectional controls that reorder what they read. */
  plainDirection?: boolean;
}

/** Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they make text read otherwise than it is stored. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/** C0 control characters other than tab, LF and CR: never meaningful in a field, and NUL breaks Postgres. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Any C0 control character, tab and new lines included (a path or a directory name holds none). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f]/;

export function hasAnyControlCharacter(value: string): boolean {
  return ANY_CONTROL.test(value);
}

export function hasControlCharacters(value: string): boolean {
  return CONTROL.test(value);
}

export function checkText(field: string, value: string, rule: TextRule): string {
  if (CONTROL.test(value)) throw new InvalidFieldError(field, `must not contain control characters`);
  if ([...value].length > rule.max) {
    throw new InvalidFieldError(field, `must be at most ${rule.max} characters`);
  }
  if (rule.singleLine && /[\r\n]/.test(value)) {
    throw new InvalidFieldError(field, `must not contain new lines`);
  }
  if (rule.ascii && /[^\x20-\x7e]/.test(value)) {
    throw new InvalidFieldError(field, `must be printable ASCII`);
  }
  if (rule.plainDirection && BIDI_CONTROL.test(value)) {
    throw new InvalidFieldError(field, `must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)`);
  }
  return value;
}

// One address, local@domain with a dotted domain: the check the spec asks for, not RFC 5322 in full.
const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function checkEmail(field: string, value: string): string {
  checkText(field, value, { max: 254, singleLine: true, ascii: true });
  if (!EMAIL.test(value)) throw new InvalidFieldError(field, `'${value}' is not an e-mail address`);
  return value;
}

export function parseHttpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

export function checkHttpUrl(field: string, value: string, max = 4096): string {
  checkText(field, value, { max, singleLine: true, ascii: true });
  const url = parseHttpUrl(value);
  if (!url || !url.hostname) throw new InvalidFieldError(field, `must be an absolute http or https URL`);
  return value;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function checkHostname(field: string, value: string): string {
  if (!HOSTNAME.test(value)) throw new InvalidFieldError(field, `'${value}' is not a hostname`);
  return value;
}

export function checkInteger(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidFieldError(field, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Deep equality of JSON values, for "a read-only key sent back unchanged is accepted". */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  // an array's own keys are its indices: the same comparison as for objects
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  return (
    ak.length === bk.length &&
    ak.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as never)[k], (b as never)[k]))
  );
}
