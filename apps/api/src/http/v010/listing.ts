import { BadRequestError, Glob, KEEP_EVERY_ENTRY, LISTING_FIELDS, listedValue, octal, type Listed, type ListingField, type ListingFilter, type ListingOrder } from '@xfer/core';

/**
 * The hosted service's `orderby` and `filter` of `ls`, decoded into the order and the filter a
 * listing takes (the grammar is the wire's; core knows fields and entries).
 */

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

/**
 * The hosted filter grammar. A filter is `/`-separated clauses that must all hold; several filters
 * (the SDK's list form): an entry is kept when any of them holds. A clause is `field:value`:
 * name, type, user, group and permissions take `x` or `=x` (one of comma-separated values), `!x`
 * or `!=x` (none of them), `~glob` and `!~glob` (`*` any run of characters); size and last_modified
 * take a range `low,high` (inclusive, either end may be empty).
 */
export function parseListingFilter(filter: string | readonly string[] | undefined): ListingFilter {
  const filters = (typeof filter === 'string' ? [filter] : (filter ?? [])).filter((f) => f.trim() !== '').map((f) => f.split('/').filter((c) => c !== '').map(parseClause));
  if (filters.length === 0) return KEEP_EVERY_ENTRY;
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
  const text = (entry: Listed): string => (field === 'permissions' ? octal(entry.permissions ?? 0) : String(listedValue(entry, field as ListingField)));
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
      const value = listedValue(entry, field) as number;
      return (low === null || value >= low) && (high === null || value <= high);
    },
  };
}
