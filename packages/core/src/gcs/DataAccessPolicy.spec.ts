import { InvalidFieldError } from '../shared/errors';
import { checkPathRestrictions, pathAccess, refusalOf } from './DataAccessPolicy';

const context = { home: '/home/alice', user: 'alice' };

describe("a storage gateway's data access policies", () => {
  it('gives each path the access of the longest pattern over it or an ancestor; none where nothing matches', () => {
    const restrictions = checkPathRestrictions({ DATA_TYPE: 'path_restrictions#1.0.0', read_write: ['/', '~'], read: ['/shared', '/projects/*/results'], none: ['/shared/secrets', '/home/*/.ssh'] });
    expect(pathAccess(restrictions, '/data/run.csv', context)).toBe('rw');
    expect(pathAccess(restrictions, '/shared', context)).toBe('r');
    expect(pathAccess(restrictions, '/shared/notes/a.txt', context)).toBe('r');
    expect(pathAccess(restrictions, '/shared/secrets', context)).toBe('none');
    expect(pathAccess(restrictions, '/shared/secrets/key', context)).toBe('none');
    expect(pathAccess(restrictions, '/projects/x/results/out.h5', context)).toBe('r');
    expect(pathAccess(restrictions, '/projects/x/raw', context)).toBe('rw');
    // ~ is the account's home: longer than / wins
    expect(pathAccess(restrictions, '/home/alice/.ssh/id_rsa', context)).toBe('none');
    expect(pathAccess(restrictions, '/home/alice/thesis', context)).toBe('rw');
    // without restrictions the operating system decides; with some, an unmatched path is closed
    expect(pathAccess(null, '/anything', context)).toBe('rw');
    expect(pathAccess(checkPathRestrictions({ read_write: ['/projects/$USER'] }), '/projects/alice/a', context)).toBe('rw');
    expect(pathAccess(checkPathRestrictions({ read_write: ['/projects/$USER'] }), '/projects/bob/a', context)).toBe('none');
    // equal lengths: the narrower access
    expect(pathAccess(checkPathRestrictions({ read_write: ['/a'], none: ['/a'] }), '/a/b', context)).toBe('none');
  });

  it('refuses bad restriction documents naming the field', () => {
    const field = (value: unknown) => {
      try {
        checkPathRestrictions(value);
      } catch (error) {
        return (error as InvalidFieldError).field;
      }
      return null;
    };
    expect(field({ DATA_TYPE: 'path_restrictions#1.0.0', read_only: ['/'] })).toBe('restrict_paths.read_only');
    expect(field({ DATA_TYPE: 'path_restrictions#2.0.0' })).toBe('restrict_paths.DATA_TYPE');
    expect(field({ read: '/' })).toBe('restrict_paths.read');
    expect(field({ read: ['relative'] })).toBe('restrict_paths.read[0]');
    expect(field([])).toBe('restrict_paths');
  });

  it('admits accounts as GCS documents its allow and deny lists', () => {
    const open = { users_allow: [], users_deny: [], groups_allow: [], groups_deny: [] };
    const alice = { name: 'alice', groups: ['alice', 'lab'] };
    expect(refusalOf(open, alice)).toBeNull();
    expect(refusalOf({ ...open, users_deny: ['alice'], users_allow: ['alice'] }, alice)).toContain('users_deny');
    expect(refusalOf({ ...open, groups_deny: ['lab'] }, alice)).toContain('groups_deny');
    // allowed by name beats a denied group
    expect(refusalOf({ ...open, groups_deny: ['lab'], users_allow: ['alice'] }, alice)).toBeNull();
    expect(refusalOf({ ...open, users_allow: ['bob'] }, alice)).toContain('not among');
    // a group allow list admits its members (supplementary groups count) even when a user list is set
    expect(refusalOf({ ...open, users_allow: ['bob'], groups_allow: ['lab'] }, alice)).toBeNull();
    expect(refusalOf({ ...open, groups_allow: ['staff'] }, alice)).toContain('not among');
  });
});
