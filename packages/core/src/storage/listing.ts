import type { FileEntry } from './Storage';

/** The fields of a `file` document a listing may be ordered or filtered by. */
export type ListingField = 'name' | 'type' | 'size' | 'last_modified' | 'permissions' | 'user' | 'group';
export const LISTING_FIELDS: readonly ListingField[] = ['name', 'type', 'size', 'last_modified', 'permissions', 'user', 'group'];

export type ListingOrder = { field: ListingField; descending: boolean }[];

/** What a listing is ordered and filtered on: a name alone, or a whole entry. */
export type Listed = Pick<FileEntry, 'name'> & Partial<FileEntry>;

/** The value of one field of an entry, as a listing orders and filters by it. */
export function listedValue(entry: Listed, field: ListingField): string | number {
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
    const x = listedValue(a, field);
    const y = listedValue(b, field);
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
  }
  return 0;
}

/** Which entries a listing keeps (the API decodes the hosted filter grammar into one). */
export interface ListingFilter {
  /** It reads names only: entries need not be read to filter. */
  namesOnly: boolean;
  test(entry: Listed): boolean;
}

/** A filter that keeps every entry. */
export const KEEP_EVERY_ENTRY: ListingFilter = { namesOnly: true, test: () => true };

/** Permission bits as the hosted documents write them: "0644". */
export function octal(permissions: number): string {
  return (permissions & 0o7777).toString(8).padStart(4, '0');
}
