import { InvalidPathError } from '../shared/errors';
import { baseName, isWithin, joinStoragePath, MAX_PATH_LENGTH, parentOf, resolveStoragePath } from './paths';

const refusal = (raw: string, home = '/home/alice') => {
  try {
    resolveStoragePath(raw, home);
    return null;
  } catch (error) {
    return error instanceof InvalidPathError ? error.message : String(error);
  }
};

describe('paths on an endpoint', () => {
  it('resolves ., .., doubled and trailing slashes, and the home', () => {
    expect(resolveStoragePath('/data//./sub/../file.txt', '/home/alice')).toBe('/data/file.txt');
    expect(resolveStoragePath('/data/sub/', '/')).toBe('/data/sub');
    expect(resolveStoragePath('/', '/')).toBe('/');
    expect(resolveStoragePath('/~/notes', '/home/alice/')).toBe('/home/alice/notes');
    expect(resolveStoragePath('/~/notes', '/home/alice//')).toBe('/home/alice/notes');
    expect(resolveStoragePath('~/notes', '/home/alice')).toBe('/home/alice/notes');
    expect(resolveStoragePath('~', '/home/alice')).toBe('/home/alice');
    expect(resolveStoragePath('/~', '/home/alice')).toBe('/home/alice');
    // only a leading ~ is the home: elsewhere it is a name
    expect(resolveStoragePath('/data/~/x', '/home/alice')).toBe('/data/~/x');
    expect(resolveStoragePath('/~x', '/home/alice')).toBe('/~x');
    expect(resolveStoragePath('/a/%2e%2e/b', '/')).toBe('/a/%2e%2e/b');
    expect(resolveStoragePath('/a/.../b', '/')).toBe('/a/.../b');
  });

  it('refuses new lines, NUL, relative paths, climbing out, and overlong paths, naming the path', () => {
    for (const bad of ['/a\nb', '/a\rb', '/a\0b']) expect(refusal(bad)).toBe('Invalid path: a path may not hold a new line, a carriage return or NUL');
    expect(refusal('data/file')).toBe("Invalid path 'data/file': an absolute path (/...) or one in your home (/~/...)");
    expect(refusal('')).toBe("Invalid path '': an absolute path (/...) or one in your home (/~/...)");
    expect(refusal(`x${'y'.repeat(300)}`)).toBe(`Invalid path '${`x${'y'.repeat(300)}`.slice(0, 200)}': an absolute path (/...) or one in your home (/~/...)`);
    expect(refusal('/..')).toBe("Invalid path '/..': it climbs out of the endpoint's root");
    expect(refusal('/a/../..')).toBe("Invalid path '/a/../..': it climbs out of the endpoint's root");
    expect(refusal(`/${'a'.repeat(300)}/../..`)).toBe(`Invalid path '${`/${'a'.repeat(300)}/../..`.slice(0, 200)}': it climbs out of the endpoint's root`);
    expect(refusal('/~/../..', '/home/alice')).toBeNull();
    expect(refusal('/~/../../..', '/home/alice')).toContain('climbs out');
    const longest = `/${'a'.repeat(MAX_PATH_LENGTH - 1)}`;
    expect(resolveStoragePath(longest, '/')).toBe(longest);
    expect(refusal(`${longest}b`)).toBe(`Invalid path: at most ${MAX_PATH_LENGTH} characters`);
  });

  it('joins, compares, names and climbs resolved paths', () => {
    expect([joinStoragePath('/', '/a'), joinStoragePath('/base', '/'), joinStoragePath('/base', '/a/b')]).toEqual(['/a', '/base', '/base/a/b']);
    expect([isWithin('/a/b', '/a'), isWithin('/a', '/a'), isWithin('/ab', '/a'), isWithin('/x', '/')]).toEqual([true, true, false, true]);
    expect([baseName('/'), baseName('/a'), baseName('/a/b.txt')]).toEqual(['/', 'a', 'b.txt']);
    expect([parentOf('/'), parentOf('/a'), parentOf('/a/b'), parentOf('/a/b/c')]).toEqual(['/', '/', '/a', '/a/b']);
  });
});
