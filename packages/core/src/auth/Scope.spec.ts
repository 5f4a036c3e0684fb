import { BadRequestError } from '../shared/errors';
import { AUTH_RESOURCE_SERVER, checkResourceServer, checkScopeDescription, checkScopeName, resourceServerOf } from './Scope';

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
