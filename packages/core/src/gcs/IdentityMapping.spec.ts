import { InvalidFieldError } from '../shared/errors';
import { checkIdentityMappings, compileMatch, IdentityMappingError, mapIdentities, mapIdentity, type ExpressionIdentityMapping } from './IdentityMapping';

const alice = { id: 'a1b2c3d4-0000-4000-8000-000000000001', username: 'alice@example.org', email: 'alice.smith@mail.example.org', name: 'Alice Smith', organization: null, identity_provider: 'idp-1' };
const rule = (match: string, output = '{0}', extra: Record<string, unknown> = {}) => ({ source: '{username}', match, output, ...extra });
const document = (...mappings: Record<string, unknown>[]): ExpressionIdentityMapping => checkIdentityMappings([{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings }])[0]!;

describe('identity mapping documents, as the GCS mapping library reads them', () => {
  it('maps by the first rule whose full match takes the source; output from groups and identity fields', () => {
    expect(mapIdentity(document(rule('(.*)@example\\.org')), alice)).toBe('alice');
    // a full match: a prefix or a suffix alone does not do
    expect(mapIdentity(document(rule('alice')), alice)).toBeNull();
    expect(mapIdentity(document(rule('(.*)@other\\.org'), rule('(a)(l)ice@(.*)', '{1}{0}-{2}')), alice)).toBe('la-example.org');
    expect(mapIdentity(document({ source: '{email}', match: '(.*)\\.(.*)@mail\\.example\\.org', output: '{1}_{0}' }), alice)).toBe('smith_alice');
    expect(mapIdentity(document({ source: '{id}', match: 'a1b2c3d4-0000-4000-8000-000000000001', output: 'svc-portal', literal: true }), alice)).toBe('svc-portal');
    expect(mapIdentity(document(rule('ALICE@EXAMPLE\\.ORG', 'alice', { ignore_case: true })), alice)).toBe('alice');
    expect(mapIdentity(document(rule('ALICE@EXAMPLE\\.ORG', 'alice')), alice)).toBeNull();
    // alternations, as sites keep their user lists
    expect(mapIdentity(document(rule('(bob|alice|carol)@example\\.org')), alice)).toBe('alice');
    // characters the language does not know are literal: + [ ] { } ^ $
    expect(mapIdentity(document(rule('a+b[1]{2}^$', 'x')), { ...alice, username: 'a+b[1]{2}^$' })).toBe('x');
    // literal: nothing is special
    expect(mapIdentity(document(rule('(.*)@example.org', 'y', { literal: true })), alice)).toBeNull();
    expect(mapIdentity(document(rule('(.*)@example.org', 'y', { literal: true })), { ...alice, username: '(.*)@example.org' })).toBe('y');
  });

  it('fails a mapping whose source or output names what the identity lacks, or a group its match has not', () => {
    expect(() => mapIdentity(document({ source: '{organization}', match: '(.*)', output: '{0}' }), alice)).toThrow(new IdentityMappingError('Missing identity property organization'));
    expect(() => mapIdentity(document(rule('(.*)@example\\.org', '{1}')), alice)).toThrow(new IdentityMappingError('Invalid reference to 1'));
  });

  it('takes the first document that maps any identity of the set, the primary first; one allowed domain strips it without documents', () => {
    const linked = { id: 'b', username: 'asmith@uni.example.edu' };
    const documents = [document(rule('(.*)@uni\\.example\\.edu')), document(rule('(.*)@example\\.org'))];
    expect(mapIdentities(documents, [alice, linked])).toBe('asmith');
    expect(mapIdentities([document(rule('(.*)@example\\.org'), rule('(.*)@uni\\.example\\.edu'))], [linked, alice])).toBe('asmith');
    expect(mapIdentities([], [linked, alice], ['example.org'])).toBe('alice');
    expect(mapIdentities([], [alice], ['example.org', 'uni.example.edu'])).toBeNull();
    expect(mapIdentities([], [alice])).toBeNull();
  });

  it('refuses bad documents naming the field, as the library refuses them when loaded', () => {
    const bad = (value: unknown, field: string, words: string | RegExp) => {
      let thrown: unknown;
      try {
        checkIdentityMappings(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidFieldError);
      expect([(thrown as InvalidFieldError).field, (thrown as Error).message]).toEqual([field, typeof words === 'string' ? expect.stringContaining(words) : expect.stringMatching(words)]);
    };
    const one = (mapping: Record<string, unknown>) => [{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [mapping] }];
    bad({}, 'identity_mappings', 'a list');
    bad([{ DATA_TYPE: 'identity_mapping#1.0.0', mappings: [rule('x')] }], 'identity_mappings[0].DATA_TYPE', 'expression_identity_mapping#1.0.0');
    bad([{ DATA_TYPE: 'external_identity_mapping#1.0.0', command: ['/bin/true'] }], 'identity_mappings[0].command', 'no field');
    bad([{ DATA_TYPE: 'external_identity_mapping#1.0.0' }], 'identity_mappings[0].DATA_TYPE', 'not run here');
    bad([{ DATA_TYPE: 'expression_identity_mapping#1.0.0', mappings: [] }], 'identity_mappings[0].mappings', 'one or more');
    bad(one({ ...rule('x'), read_only: true }), 'identity_mappings[0].mappings[0].read_only', 'no field');
    bad(one({ source: '{username}', match: 'x' }), 'identity_mappings[0].mappings[0].output', 'non-empty string');
    bad(one(rule('x', '{0}', { ignore_case: 'yes' })), 'identity_mappings[0].mappings[0].ignore_case', 'true or false');
    bad(one(rule('\\d+')), 'identity_mappings[0].mappings[0].match', 'Invalid \\ expression');
    bad(one(rule('a*?')), 'identity_mappings[0].mappings[0].match', 'Invalid ? expression');
    bad(one(rule('*@example')), 'identity_mappings[0].mappings[0].match', 'Invalid leading wildcard expression');
    bad(one(rule('(a')), 'identity_mappings[0].mappings[0].match', 'Invalid mapping');
    bad(one(rule('a**')), 'identity_mappings[0].mappings[0].match', 'Invalid mapping');
    // what would take exponential time on a long name
    bad(one(rule('(a*)*b')), 'identity_mappings[0].mappings[0].match', 'nested wildcard');
    bad(one(rule('((a|b)c)*')), 'identity_mappings[0].mappings[0].match', 'nested wildcard');
  });

  it('escapes as the library does: a backslash before its specials or a digit, everything else plain', () => {
    expect(compileMatch({ match: 'a\\.b\\*', ignore_case: false, literal: false }).test('a.b*')).toBe(true);
    expect(compileMatch({ match: 'a\\.b', ignore_case: false, literal: false }).test('axb')).toBe(false);
    expect(compileMatch({ match: '(a)b\\1', ignore_case: false, literal: false }).test('aba')).toBe(true);
    // safe groups keep their quantifiers
    expect(compileMatch({ match: '(ab)?c', ignore_case: false, literal: false }).test('c')).toBe(true);
  });
});
