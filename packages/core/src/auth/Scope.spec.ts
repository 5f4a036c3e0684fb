import { BadRequestError } from '../shared/errors';
import { AUTH_RESOURCE_SERVER, checkResourceServer, checkScopeDescription, checkScopeName, parseScopeString, resourceServerOf } from './Scope';

describe('scopes', () => {
  it('takes the resource server from a scope name only when the name begins with the pattern', () => {
    expect(resourceServerOf('urn:globus:auth:scope:transfer.api.globus.org:all')).toBe('transfer.api.globus.org');
    expect(resourceServerOf('urn:xfer:scope:storage.example.org:data_access')).toBe('storage.example.org');
    expect(resourceServerOf('https://auth.globus.org/scopes/abc-123/https')).toBe('abc-123');
    // the same text further in is not a scope URN or URL
    expect(resourceServerOf('x-urn:globus:auth:scope:transfer.api.globus.org:all')).toBe(AUTH_RESOURCE_SERVER);
    expect(resourceServerOf('x-urn:xfer:scope:storage.example.org:data_access')).toBe(AUTH_RESOURCE_SERVER);
    expect(resourceServerOf('see https://auth.globus.org/scopes/abc-123/https')).toBe(AUTH_RESOURCE_SERVER);
    expect(resourceServerOf('openid')).toBe(AUTH_RESOURCE_SERVER);
  });

  it('takes a resource server of letters, digits and . _ : - that begins with a letter or digit, up to 256', () => {
    expect(checkResourceServer('transfer.api.globus.org')).toBe('transfer.api.globus.org');
    expect(checkResourceServer('a'.repeat(256))).toHaveLength(256);
    expect(() => checkResourceServer('a'.repeat(257))).toThrow(BadRequestError);
    expect(() => checkResourceServer('-transfer')).toThrow("Invalid resource server '-transfer'");
    expect(() => checkResourceServer('transfer/api')).toThrow("Invalid resource server 'transfer/api'");
  });

  it('names the refused scope name', () => {
    expect(checkScopeName('urn:globus:auth:scope:transfer.api.globus.org:all')).toBe('urn:globus:auth:scope:transfer.api.globus.org:all');
    expect(() => checkScopeName('two words')).toThrow("Invalid scope name 'two words'");
    expect(() => checkScopeName('')).toThrow(BadRequestError);
  });

  it('takes a description of one line, at most 1024 characters', () => {
    expect(checkScopeDescription('é'.repeat(1024))).toHaveLength(1024);
    expect(() => checkScopeDescription('a'.repeat(1025))).toThrow('Invalid description: must be at most 1024 characters');
    expect(() => checkScopeDescription('one\ntwo')).toThrow('Invalid description: must not contain new lines');
  });
});

describe('scope strings of the hosted grammar', () => {
  it('reads names, optional marks and nested dependencies', () => {
    expect(parseScopeString('openid  https://auth.globus.org/scopes/524230d7-ea86-4a52-8312-86065a9e0417/timer[urn:globus:auth:scope:transfer.api.globus.org:all[*https://auth.globus.org/scopes/c1/data_access]]')).toEqual([
      { name: 'openid', optional: false, dependencies: [] },
      {
        name: 'https://auth.globus.org/scopes/524230d7-ea86-4a52-8312-86065a9e0417/timer',
        optional: false,
        dependencies: [{ name: 'urn:globus:auth:scope:transfer.api.globus.org:all', optional: false, dependencies: [{ name: 'https://auth.globus.org/scopes/c1/data_access', optional: true, dependencies: [] }] }],
      },
    ]);
    expect(parseScopeString('a[b c] d')).toEqual([
      { name: 'a', optional: false, dependencies: [{ name: 'b', optional: false, dependencies: [] }, { name: 'c', optional: false, dependencies: [] }] },
      { name: 'd', optional: false, dependencies: [] },
    ]);
    expect(parseScopeString('  ')).toEqual([]);
  });

  it('says where a scope string is wrong', () => {
    expect(() => parseScopeString('a[b')).toThrow('Invalid scope string at character 4: a [ is not closed');
    expect(() => parseScopeString('a]')).toThrow('a ] closes nothing');
    expect(() => parseScopeString('a[]')).toThrow("'a' has empty brackets");
    expect(() => parseScopeString('* a')).toThrow('a scope name is missing');
    expect(() => parseScopeString(`${'a['.repeat(9)}b${']'.repeat(9)}`)).toThrow('nested deeper than 8');
    expect(() => parseScopeString('bad$name')).toThrow("Invalid scope name 'bad$name'");
  });
});
