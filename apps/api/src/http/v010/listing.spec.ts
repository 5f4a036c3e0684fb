import { BadRequestError, compareEntries, octal, type Listed } from '@xfer/core';
import { parseListingFilter, parseListingOrder } from './listing';

const entry = (name: string, extra: Partial<Listed> = {}): Listed => ({ name, ...extra });
const at = (iso: string) => new Date(iso);

describe("a listing's order and filter, in the hosted grammar", () => {
  it('reads orderby: fields with ASC or DESC, comma-separated or one per element, spaces anywhere', () => {
    expect(parseListingOrder('  size   DESC , name ')).toEqual([{ field: 'size', descending: true }, { field: 'name', descending: false }]);
    expect(parseListingOrder(['type asc', 'last_modified desc'])).toEqual([{ field: 'type', descending: false }, { field: 'last_modified', descending: true }]);
    expect(parseListingOrder(undefined)).toEqual([]);
    expect(parseListingOrder(' , ')).toEqual([]);
    for (const bad of ['colour ASC', 'name UP', 'name ASC DESC']) expect(() => parseListingOrder(bad)).toThrow(`Invalid orderby '${bad}': a field (name, type, size, last_modified, permissions, user, group) and ASC or DESC`);
    expect(() => parseListingOrder(`  ${'x'.repeat(150)}  `)).toThrow(new BadRequestError(`Invalid orderby '${'x'.repeat(100)}': a field (name, type, size, last_modified, permissions, user, group) and ASC or DESC`));
  });

  it('orders field after field, missing values first, descending when asked', () => {
    const small = entry('b', { size: 1, lastModified: at('2026-01-02T00:00:00Z'), permissions: 0o644, type: 'file', user: 'zed', group: 'a' });
    const large = entry('a', { size: 9, lastModified: at('2026-01-01T00:00:00Z'), permissions: 0o755, type: 'dir', user: 'amy', group: 'b' });
    const bare = entry('c');
    const sorted = (order: string) => [small, large, bare].sort((x, y) => compareEntries(x, y, parseListingOrder(order))).map((e) => e.name);
    expect(sorted('size')).toEqual(['c', 'b', 'a']);
    expect(sorted('size DESC')).toEqual(['a', 'b', 'c']);
    expect(sorted('last_modified')).toEqual(['c', 'a', 'b']);
    expect(sorted('permissions DESC')).toEqual(['a', 'b', 'c']);
    expect(sorted('type')).toEqual(['c', 'a', 'b']);
    expect(sorted('user')).toEqual(['c', 'a', 'b']);
    expect(sorted('group DESC')).toEqual(['a', 'b', 'c']);
    expect(sorted('name DESC')).toEqual(['c', 'b', 'a']);
    expect(compareEntries(small, { ...small }, parseListingOrder('size,name'))).toBe(0);
    // a missing owner sorts before any name, capitals included
    expect([entry('x', { user: 'Amy' }), entry('y')].sort((a, b) => compareEntries(a, b, parseListingOrder('user'))).map((e) => e.name)).toEqual(['y', 'x']);
    expect(compareEntries(entry('a', { size: 1 }), entry('b', { size: 1 }), parseListingOrder('size,name DESC'))).toBe(1);
  });

  it('filters by name with values and globs, across new lines, keeping names alone when it can', () => {
    const names = (filter: string | string[], list: Listed[]) => list.filter((e) => parseListingFilter(filter).test(e)).map((e) => e.name);
    const list = [entry('a.csv'), entry('b.txt'), entry('c.png'), entry('line\nbreak.csv'), entry('a|b')];
    expect(names('name:~*.csv,*.txt', list)).toEqual(['a.csv', 'b.txt', 'line\nbreak.csv']);
    expect(names('name:!~*.csv', list)).toEqual(['b.txt', 'c.png', 'a|b']);
    expect(names('name:a.csv,c.png', list)).toEqual(['a.csv', 'c.png']);
    expect(names('name:=b.txt', list)).toEqual(['b.txt']);
    expect(names('name:!=b.txt', list)).toEqual(['a.csv', 'c.png', 'line\nbreak.csv', 'a|b']);
    expect(names('name:~a.*', [entry('aXcsv'), entry('a.csv')])).toEqual(['a.csv']);
    expect(names('name:~a|b', list)).toEqual(['a|b']);
    expect(names('name:a.csv//', list)).toEqual(['a.csv']);
    expect(names(['name:a.csv', 'name:b.txt'], list)).toEqual(['a.csv', 'b.txt']);
    expect(parseListingFilter(undefined)).toMatchObject({ namesOnly: true });
    expect(parseListingFilter('  ')).toMatchObject({ namesOnly: true });
    expect(parseListingFilter('name:a/name:~b*').namesOnly).toBe(true);
    expect(parseListingFilter('name:a/type:file').namesOnly).toBe(false);
    expect(parseListingFilter(['name:a', 'size:1,']).namesOnly).toBe(false);
    expect(() => parseListingFilter('colour:red')).toThrow("Invalid filter clause 'colour:red': <field>:<value>, the field one of name, type, size, last_modified, permissions, user, group");
    expect(() => parseListingFilter(`nope${'x'.repeat(150)}`)).toThrow(`Invalid filter clause 'nope${'x'.repeat(96)}': <field>`);
  });

  it('filters by type, owner and permission bits, and by size and time ranges with either end open', () => {
    const list = [
      entry('small', { type: 'file', size: 10, lastModified: at('2026-01-01T12:00:00Z'), permissions: 0o644, user: 'alice', group: 'lab' }),
      entry('big', { type: 'file', size: 5000, lastModified: at('2026-02-01T00:00:00Z'), permissions: 0o600, user: 'bob', group: 'lab' }),
      entry('dir', { type: 'dir', size: 4096, lastModified: at('2025-12-31T23:59:59Z'), permissions: 0o755, user: 'alice', group: 'staff' }),
    ];
    const names = (filter: string) => list.filter((e) => parseListingFilter(filter).test(e)).map((e) => e.name);
    expect(names('type:file')).toEqual(['small', 'big']);
    expect(names('type:file/user:alice')).toEqual(['small']);
    expect(names('group:!lab')).toEqual(['dir']);
    expect(names('permissions:0644,0755')).toEqual(['small', 'dir']);
    expect(names('size:100,')).toEqual(['big', 'dir']);
    expect(names('size:,4096')).toEqual(['small', 'dir']);
    expect(names('size: 10 , 10 ')).toEqual(['small']);
    expect(names('last_modified:2026-01-01,2026-01-31')).toEqual(['small']);
    expect(names('last_modified:2026-01-01 12:00:00,')).toEqual(['small', 'big']);
    expect(names('last_modified:,2026-01-01')).toEqual(['dir']);
    expect(names('size:100')).toEqual(['big', 'dir']);
    expect(names('last_modified: ,2026-01-31')).toEqual(['small', 'dir']);
    expect(names('last_modified: 2026-01-01 ,')).toEqual(['small', 'big']);
    expect(() => parseListingFilter(`size:1,2,${'3'.repeat(150)}`)).toThrow(new BadRequestError(`Invalid filter clause '${`size:1,2,${'3'.repeat(150)}`.slice(0, 100)}': size:<low>,<high>`));
    expect(() => parseListingFilter('size:1,2,3')).toThrow("Invalid filter clause 'size:1,2,3': size:<low>,<high>");
    expect(() => parseListingFilter('size:many,')).toThrow("Invalid filter clause 'size:many,': size:<low>,<high> (numbers of bytes; either may be empty)");
    expect(() => parseListingFilter('last_modified:soon')).toThrow("Invalid filter clause 'last_modified:soon': last_modified:<low>,<high> (dates; either may be empty)");
    expect(() => parseListingFilter(`size:${'9'.repeat(5)}x${'0'.repeat(150)}`)).toThrow(`Invalid filter clause 'size:${'9'.repeat(5)}x${'0'.repeat(89)}'`);
  });

  it('writes permission bits as the hosted documents do', () => {
    expect([octal(0o644), octal(0o4755), octal(0o100644), octal(0)]).toEqual(['0644', '4755', '0644', '0000']);
  });

  it('reads the forms clients send: empty filters keep all, a bad pattern matches nothing, a date with a space, empty orderby parts', () => {
    const list = [entry('a.png', { type: 'file', size: 300 }), entry('old.txt', { type: 'file', size: 1, lastModified: at('2020-03-04T05:06:07Z') })];
    const names = (filter: string | string[]) => list.filter((e) => parseListingFilter(filter).test(e)).map((e) => e.name);
    expect(names(['', ' '])).toEqual(['a.png', 'old.txt']);
    expect(names('name:~a(png')).toEqual([]);
    expect(names('last_modified:2020-03-04 05:06:07,2020-03-04 05:06:07')).toEqual(['old.txt']);
    expect(names('type:file/name:~*.png')).toEqual(['a.png']);
    expect(names(['size:,2', 'name:a.png'])).toEqual(['a.png', 'old.txt']);
    expect(parseListingFilter('name:~*.txt').namesOnly).toBe(true);
    expect(parseListingFilter('type:file/name:x').namesOnly).toBe(false);
    expect(parseListingOrder('last_modified asc,size')).toEqual([{ field: 'last_modified', descending: false }, { field: 'size', descending: false }]);
    for (const bad of ['size UP', 'colour', 'name ASC extra']) expect(() => parseListingOrder(bad)).toThrow(`Invalid orderby '${bad}': a field (name, type, size, last_modified, permissions, user, group) and ASC or DESC`);
  });
});
