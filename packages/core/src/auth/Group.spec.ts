import { checkGroupName } from './Group';

describe('group names', () => {
  it('take letters, digits, space and . _ - after a letter or digit, at most 128', () => {
    expect(checkGroupName('Reef lab_2.0-x')).toBe('Reef lab_2.0-x');
    expect(checkGroupName('a'.repeat(128))).toHaveLength(128);
    expect(() => checkGroupName('a'.repeat(129))).toThrow(/^Invalid group name 'a+': letters, digits, space and \. _ -, at most 128$/);
    expect(() => checkGroupName(' lab')).toThrow("Invalid group name ' lab'");
    // a refused character anywhere, the last one included
    expect(() => checkGroupName('lab!')).toThrow("Invalid group name 'lab!'");
  });
});
