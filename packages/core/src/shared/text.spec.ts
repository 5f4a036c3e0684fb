import { BadRequestError } from './errors';
import { checkEmail, checkHostname, checkHttpUrl, checkInteger, checkText, hasControlCharacters, isUuid, jsonEqual, parseHttpUrl } from './text';

const refused = (check: () => unknown) => {
  try {
    check();
  } catch (error) {
    if (error instanceof BadRequestError) return error.message;
    throw error;
  }
  return null;
};

describe('text guards', () => {
  it('refuses C0 control characters and DEL, but takes tab, LF and CR', () => {
    for (const c of ['\u0000', '\u0008', '\u000b', '\u000c', '\u000e', '\u001f', '\u007f']) expect(hasControlCharacters(`a${c}b`)).toBe(true);
    for (const c of ['\t', '\n', '\r', ' ', '\u0080', 'é']) expect(hasControlCharacters(`a${c}b`)).toBe(false);
    expect(refused(() => checkText('name', 'a\u0000', { max: 10 }))).toBe('Invalid name: must not contain control characters');
  });

  it('counts characters, not UTF-16 units, up to the maximum', () => {
    expect(checkText('name', '🙂'.repeat(3), { max: 3 })).toBe('🙂🙂🙂');
    expect(refused(() => checkText('name', 'abcd', { max: 3 }))).toBe('Invalid name: must be at most 3 characters');
    expect(checkText('name', '', { max: 0 })).toBe('');
  });

  it('refuses new lines in single-line fields and anything but printable ASCII in ASCII fields', () => {
    expect(checkText('name', 'a\nb', { max: 10 })).toBe('a\nb');
    expect(refused(() => checkText('name', 'a\nb', { max: 10, singleLine: true }))).toBe('Invalid name: must not contain new lines');
    expect(refused(() => checkText('name', 'a\rb', { max: 10, singleLine: true }))).toBe('Invalid name: must not contain new lines');
    expect(checkText('name', ' ~', { max: 10, ascii: true })).toBe(' ~');
    expect(refused(() => checkText('name', 'café', { max: 10, ascii: true }))).toBe('Invalid name: must be printable ASCII');
    expect(refused(() => checkText('name', 'a\tb', { max: 10, ascii: true }))).toBe('Invalid name: must be printable ASCII');
  });

  it('takes e-mail addresses of up to 254 characters with a dotted domain', () => {
    expect(checkEmail('email', "o'neil+tag@mail.example.org")).toBe("o'neil+tag@mail.example.org");
    for (const bad of ['alice', 'alice@localhost', 'alice@-bad.org', 'al ice@example.org', '@example.org', 'alice@example.org.']) {
      expect(refused(() => checkEmail('email', bad))).toMatch(/is not an e-mail address/);
    }
    expect(refused(() => checkEmail('email', `${'a'.repeat(243)}@example.org`))).toMatch(/at most 254/);
    expect(checkEmail('email', `${'a'.repeat(242)}@example.org`)).toHaveLength(254);
  });

  it('takes absolute http and https URLs only', () => {
    expect(parseHttpUrl('https://example.org/a')?.hostname).toBe('example.org');
    expect(parseHttpUrl('ftp://example.org/')).toBeNull();
    expect(parseHttpUrl('javascript:alert(1)')).toBeNull();
    expect(parseHttpUrl('/relative')).toBeNull();
    expect(checkHttpUrl('url', 'http://example.org')).toBe('http://example.org');
    expect(refused(() => checkHttpUrl('url', 'mailto:a@example.org'))).toBe('Invalid url: must be an absolute http or https URL');
    expect(refused(() => checkHttpUrl('url', `https://example.org/${'a'.repeat(20)}`, 20))).toMatch(/at most 20/);
  });

  it('takes hostnames of labels up to 63 characters, 253 in all', () => {
    expect(checkHostname('hostname', 'gridftp-1.example.org')).toBe('gridftp-1.example.org');
    expect(checkHostname('hostname', 'localhost')).toBe('localhost');
    expect(checkHostname('hostname', `${'a'.repeat(63)}.org`)).toBe(`${'a'.repeat(63)}.org`);
    for (const bad of [`${'a'.repeat(64)}.org`, '-a.org', 'a-.org', 'a..org', 'a b', '', `${'a.'.repeat(126)}ab`]) {
      expect(refused(() => checkHostname('hostname', bad))).toMatch(/is not a hostname/);
    }
    expect(checkHostname('hostname', `${'a.'.repeat(125)}abc`)).toHaveLength(253);
  });

  it('takes integers within their bounds', () => {
    expect(checkInteger('n', 1, 1, 3)).toBe(1);
    expect(checkInteger('n', 3, 1, 3)).toBe(3);
    for (const bad of [0, 4, 1.5, Number.NaN]) expect(refused(() => checkInteger('n', bad, 1, 3))).toBe('Invalid n: must be an integer from 1 to 3');
  });

  it('knows a UUID in either case', () => {
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true);
    expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950')).toBe(false);
    expect(isUuid('x0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(false);
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950ex')).toBe(false);
  });

  it('compares JSON values deeply', () => {
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [1, 2])).toBe(true);
    for (const [a, b] of [[[1, 2], [1, 3]], [[1], [1, 2]], [[1, 2], { 0: 1, 1: 2 }], [{}, null], [null, {}], [1, {}], [{}, 1], ['', []]]) {
      expect(jsonEqual(a, b)).toBe(false);
    }
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(jsonEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual({}, null)).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual('a', 'a')).toBe(true);
  });
});

describe('e-mail addresses and URLs', () => {
  it('refuse new lines and anything but printable ASCII, saying so', () => {
    expect(() => checkEmail('email', 'bob\n@example.org')).toThrow('Invalid email: must not contain new lines');
    expect(() => checkEmail('email', 'bób@example.org')).toThrow('Invalid email: must be printable ASCII');
    // the URL parser itself would drop the new line and encode the letter
    expect(() => checkHttpUrl('logo_url', 'https://example.org/a\nb')).toThrow('Invalid logo_url: must not contain new lines');
    expect(() => checkHttpUrl('logo_url', 'https://exämple.org/')).toThrow('Invalid logo_url: must be printable ASCII');
  });
});
