import { InvalidFieldError } from '../shared/errors';
import { checkText } from '../shared/text';

/**
 * GCS's identity mapping documents (`expression_identity_mapping#1.0.0`), as Globus's own mapping
 * library reads and evaluates them: which local account an identity uses on a mapped collection.
 */

/** One rule of an expression mapping. */
export interface MappingExpression {
  source: string;
  match: string;
  output: string;
  ignore_case: boolean;
  literal: boolean;
}

export interface ExpressionIdentityMapping {
  DATA_TYPE: 'expression_identity_mapping#1.0.0';
  mappings: MappingExpression[];
}

/** What an identity offers a mapping's `source` and `output`: its Auth properties. */
export interface MappedIdentity {
  id: string;
  username: string;
  name?: string | null;
  email?: string | null;
  organization?: string | null;
  identity_provider?: string | null;
}

/** A document or rule count past anything a site writes (the largest seen are alternations in one rule). */
const MAX_DOCUMENTS = 20;
const MAX_RULES = 100;
const MAX_EXPRESSION = 4096;

const EXPRESSION_KEYS = new Set(['source', 'match', 'output', 'ignore_case', 'literal']);
const DOCUMENT_KEYS = new Set(['DATA_TYPE', 'mappings']);
/** The characters the reduced expression language gives a meaning; every other one is literal. */
const SPECIAL = new Set(['.', '?', '*', '|', '(', ')', '\\']);

/** A mapping failed for an identity (a property it lacks, a group its match does not have): the operation is refused, saying why. */
export class IdentityMappingError extends Error {}

/**
 * A list of identity mapping documents as an administrator wrote it, checked: each field named as
 * `identity_mappings[i].mappings[j].match` when it is wrong (an unknown key too); only expression
 * mappings (an external program would run on the node with its privileges).
 */
export function checkIdentityMappings(value: unknown, field = 'identity_mappings'): ExpressionIdentityMapping[] {
  if (!Array.isArray(value)) throw new InvalidFieldError(field, 'must be a list of identity mapping documents');
  if (value.length > MAX_DOCUMENTS) throw new InvalidFieldError(field, `at most ${MAX_DOCUMENTS} documents`);
  return value.map((document, i) => checkDocument(document, `${field}[${i}]`));
}

function checkDocument(value: unknown, at: string): ExpressionIdentityMapping {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidFieldError(at, 'must be an identity mapping document (an object)');
  const document = value as Record<string, unknown>;
  for (const key of Object.keys(document)) if (!DOCUMENT_KEYS.has(key)) throw new InvalidFieldError(`${at}.${key}`, 'is no field of expression_identity_mapping#1.0.0');
  if (document.DATA_TYPE === 'external_identity_mapping#1.0.0') throw new InvalidFieldError(`${at}.DATA_TYPE`, 'external mapping programs are not run here: write expression mappings');
  if (document.DATA_TYPE !== 'expression_identity_mapping#1.0.0') throw new InvalidFieldError(`${at}.DATA_TYPE`, "must be 'expression_identity_mapping#1.0.0'");
  const mappings = document.mappings;
  if (!Array.isArray(mappings) || mappings.length === 0) throw new InvalidFieldError(`${at}.mappings`, 'must be a list of one or more mapping expressions');
  if (mappings.length > MAX_RULES) throw new InvalidFieldError(`${at}.mappings`, `at most ${MAX_RULES} expressions`);
  return { DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: mappings.map((rule, j) => checkExpression(rule, `${at}.mappings[${j}]`)) };
}

function checkExpression(value: unknown, at: string): MappingExpression {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidFieldError(at, 'must be a mapping expression (an object)');
  const rule = value as Record<string, unknown>;
  for (const key of Object.keys(rule)) if (!EXPRESSION_KEYS.has(key)) throw new InvalidFieldError(`${at}.${key}`, 'is no field of a mapping expression (source, match, output, ignore_case, literal)');
  const text = (key: 'source' | 'match' | 'output') => {
    if (typeof rule[key] !== 'string' || rule[key] === '') throw new InvalidFieldError(`${at}.${key}`, 'must be a non-empty string');
    return checkText(`${at}.${key}`, rule[key], { max: MAX_EXPRESSION, singleLine: true });
  };
  const flag = (key: 'ignore_case' | 'literal') => {
    if (rule[key] !== undefined && typeof rule[key] !== 'boolean') throw new InvalidFieldError(`${at}.${key}`, 'must be true or false');
    return rule[key] === true;
  };
  const checked: MappingExpression = { source: text('source'), match: text('match'), output: text('output'), ignore_case: flag('ignore_case'), literal: flag('literal') };
  compileMatch(checked, `${at}.match`);
  return checked;
}

/**
 * The reduced POSIX ERE of the mapping library as a JavaScript expression, anchored as the library
 * anchors it (`^` + match + `$`): `.` `?` `*` `|` `( )` and `\` before one of them or a digit; every
 * other character literal. A quantifier on a group that holds a quantifier or an alternation is
 * refused: it could take exponential time on a long name, on every request.
 */
export function compileMatch(rule: Pick<MappingExpression, 'match' | 'ignore_case' | 'literal'>, field = 'match'): RegExp {
  const chars = Array.from(rule.match);
  let pattern = '';
  if (rule.literal) pattern = chars.map(escape).join('');
  else {
    if (chars[0] === '*' || chars[0] === '?') throw new InvalidFieldError(field, 'Invalid leading wildcard expression');
    // for each open group: whether it holds a quantifier or an alternation
    const groups: boolean[] = [];
    let lastClosedRisky = false;
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i]!;
      const afterGroup = lastClosedRisky;
      lastClosedRisky = false;
      if (c === '\\') {
        const next = chars[i + 1];
        if (next === undefined || !(SPECIAL.has(next) || /[0-9]/.test(next))) throw new InvalidFieldError(field, 'Invalid \\ expression');
        pattern += /[0-9]/.test(next) ? `\\${next}` : escape(next);
        i += 1;
      } else if (c === '?' || c === '*') {
        if (chars[i + 1] === '?') throw new InvalidFieldError(field, 'Invalid ? expression');
        if (afterGroup) throw new InvalidFieldError(field, 'Invalid nested wildcard expression: a group holding * ? or | takes no * or ? of its own');
        if (groups.length > 0) groups[groups.length - 1] = true;
        pattern += c;
      } else if (c === '|') {
        if (groups.length > 0) groups[groups.length - 1] = true;
        pattern += c;
      } else if (c === '(') {
        groups.push(false);
        pattern += c;
      } else if (c === ')') {
        const risky = groups.pop();
        if (risky === undefined) throw new InvalidFieldError(field, 'Invalid mapping: a ) closes no group');
        lastClosedRisky = risky;
        if (risky && groups.length > 0) groups[groups.length - 1] = true;
        pattern += c;
      } else if (c === '.') pattern += c;
      else pattern += escape(c);
    }
    if (groups.length > 0) throw new InvalidFieldError(field, 'Invalid mapping: a ( is not closed');
  }
  try {
    return new RegExp(`^${pattern}$`, rule.ignore_case ? 'iu' : 'u');
  } catch {
    throw new InvalidFieldError(field, 'Invalid mapping');
  }
}

/** A character taken literally (the syntax characters escaped, as the `u` flag allows no other escape). */
const escape = (c: string): string => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c);

/** `{name}` fields of `template` from the identity; `{0}`... from the match's groups. A field the identity lacks fails the mapping. */
function interpolate(template: string, identity: MappedIdentity, groups: readonly string[] | null): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+)\}/g, (_whole, name: string) => {
    if (/^[0-9]+$/.test(name)) {
      if (groups === null) throw new IdentityMappingError(`Invalid reference to ${name}`);
      const value = groups[Number(name)];
      if (value === undefined) throw new IdentityMappingError(`Invalid reference to ${name}`);
      return value;
    }
    const value = (identity as unknown as Record<string, unknown>)[name];
    if (typeof value !== 'string' || value === '') throw new IdentityMappingError(`Missing identity property ${name}`);
    return value;
  });
}

/** The output of the first rule of `document` whose match takes `identity`, or null. */
export function mapIdentity(document: ExpressionIdentityMapping, identity: MappedIdentity): string | null {
  for (const rule of document.mappings) {
    const source = interpolate(rule.source, identity, null);
    const found = compileMatch(rule).exec(source);
    if (found) return interpolate(rule.output, identity, found.slice(1).map((group) => group ?? ''));
  }
  return null;
}

/**
 * The local account an identity set maps to: the first document that maps any of the identities
 * (in the set's order, the primary first) gives its first one's output. With no documents, a
 * gateway of one allowed domain strips it (`user@example.org` gives `user`), as GCS's default does.
 * Null when nothing maps.
 */
export function mapIdentities(documents: readonly ExpressionIdentityMapping[], identities: readonly MappedIdentity[], allowedDomains: readonly string[] = []): string | null {
  if (documents.length === 0) {
    if (allowedDomains.length !== 1) return null;
    const suffix = `@${allowedDomains[0]!.toLowerCase()}`;
    const member = identities.find((identity) => identity.username.toLowerCase().endsWith(suffix));
    return member ? member.username.slice(0, -suffix.length) : null;
  }
  for (const document of documents) {
    for (const identity of identities) {
      const output = mapIdentity(document, identity);
      if (output !== null) return output;
    }
  }
  return null;
}
