import { BadRequestError } from '../shared/errors';
import { Glob } from '../shared/glob';
import type { FileEntry } from './Storage';

/** The fields of a `file` document a listing may be ordered or filtered by. */
export type ListingField = 'name' | 'type' | 'size' | 'last_modified' | 'permissions' | 'user' | 'group';
const LISTING_FIELDS: readonly ListingField[] = ['name', 'type', 'size', 'last_modified', 'permissions', 'user', 'group'];

export type ListingOrder = { field: ListingField; descending: boolean }[];

/** What a listing is ordered and filtered on: a name alone, or a whole entry. */
export type Listed = Pick<FileEntry, 'name'> & Partial<FileEntry>;

/** `orderby` as the hosted service takes it: `field [ASC|DESC]`, comma-separated or one per element. */
export function parseListingOrder(orderby: string | readonly string[] | undefined): ListingOrder {
  const parts = (typeof orderby === 'string' ? [orderby] : (orderby ?? [])).flatMap((item) => item.split(',')).filter((part) => part.trim() !== '');
  return parts.map((part) => {
    const [field = '', direction = 'ASC', ...rest] = part.trim().split(/\s+/);
    const upper = direction.toUpperCase();
    if (!(LISTING_FIELDS as readonly string[]).includes(field) || rest.length > 0 || (upper !== 'ASC' && upper !== 'DESC')) {
      throw new BadRequestError(`Invalid orderby '${part.trim().slice(0, 100)}': a field (${LISTING_FIELDS.join(', ')}) and ASC or DESC`);
    }
    return { field: field as ListingField, descending: upper === 'DESC' };
  });
}

function valueOf(entry: Listed, field: ListingField): string | number {
  switch (field) {
    case 'name':
      return entry.name;
    case 'size':
      return entry.size ?? 0;
    case 'last_modified':
      return entry.lastModified?.getTime() ?? 0;
    case 'permissions':
      return entry.permissions ?? 0;
    default:
      return entry[field] ?? '';
  }
}

/** Orders two entries by `order`, field after field. */
export function compareEntries(a: Listed, b: Listed, order: ListingOrder): number {
  for (const { field, descending } of order) {
    const x = valueOf(a, field);
    const y = valueOf(b, field);
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
}

export interface ListingFilter {
  /** Every clause is on the name: entries need not be read to filter. */
  namesOnly: boolean;
  test(entry: Listed): boolean;
}

/**
 * The hosted filter grammar. A filter is `/`-separated clauses that must all hold; several filters
 * (the SDK's list form): an entry is kept when any of them holds. A clause is `field:value`:
 * name, type, user, group and permissions take `x` or `=x` (one of comma-separated values), `!x`
 * or `!=x` (none of them), `~glob` and `!~glob` (`*` any run of characters); size and last_modified
 * take a range `low,high` (inclusive, either end may be empty).
 */
export function parseListingFilter(filter: string | readonly string[] | undefined): ListingFilter {
  const filters = (typeof filter === 'string' ? [filter] : (filter ?? [])).filter((f) => f.trim() !== '').map((f) => f.split('/').filter((c) => c !== '').map(parseClause));
  if (filters.length === 0) return { namesOnly: true, test: () => true };
  return {
    namesOnly: filters.every((clauses) => clauses.every((clause) => clause.field === 'name')),
    test: (entry) => filters.some((clauses) => clauses.every((clause) => clause.test(entry))),
  };
}

interface Clause {
  field: ListingField;
  test(entry: Listed): boolean;
}

function parseClause(clause: string): Clause {
  const colon = clause.indexOf(':');
  const field = clause.slice(0, Math.max(colon, 0));
  if (!(LISTING_FIELDS as readonly string[]).includes(field)) {
    throw new BadRequestError(`Invalid filter clause '${clause.slice(0, 100)}': <field>:<value>, the field one of ${LISTING_FIELDS.join(', ')}`);
  }
  const spec = clause.slice(colon + 1);
  if (field === 'size' || field === 'last_modified') return rangeClause(field, spec, clause);
  const negated = spec.startsWith('!');
  const rest = negated ? spec.slice(1) : spec;
  const glob = rest.startsWith('~');
  const values = (glob || rest.startsWith('=') ? rest.slice(1) : rest).split(',');
  const patterns = glob ? values.map((value) => Glob.compile(value, { classes: false }, `filter clause '${clause.slice(0, 100)}'`)) : null;
  const text = (entry: Listed): string => (field === 'permissions' ? octal(entry.permissions ?? 0) : String(valueOf(entry, field as ListingField)));
  const matches = (value: string): boolean => (patterns ? patterns.some((pattern) => pattern.matches(value)) : values.includes(value));
  return { field: field as ListingField, test: (entry) => matches(text(entry)) !== negated };
}

function rangeClause(field: 'size' | 'last_modified', spec: string, clause: string): Clause {
  const bounds = spec.split(',');
  const parse = (bound: string | undefined): number | null => {
    if (bound === undefined || bound.trim() === '') return null;
    // a date alone is midnight UTC (Date.parse reads date-only ISO forms as UTC); a space may stand for the T
    const value = field === 'size' ? Number(bound) : Date.parse(bound.trim().replace(' ', 'T'));
    if (!Number.isFinite(value)) throw new BadRequestError(`Invalid filter clause '${clause.slice(0, 100)}': ${field}:<low>,<high> (${field === 'size' ? 'numbers of bytes' : 'dates'}; either may be empty)`);
    return value;
  };
  if (bounds.length > 2) throw new BadRequestError(`Invalid filter clause '${clause.slice(0, 100)}': ${field}:<low>,<high>`);
  const [low, high] = [parse(bounds[0]), parse(bounds[1])];
  return {
    field,
    test: (entry) => {
      const value = valueOf(entry, field) as number;
      return (low === null || value >= low) && (high === null || value <= high);
    },
  };
}

/** Permission bits as the hosted documents write them: "0644". */
export function octal(permissions: number): string {
  return (permissions & 0o7777).toString(8).padStart(4, '0');
}
