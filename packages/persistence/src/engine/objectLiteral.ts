/**
 * A function that makes objects of one shape from `keys` with one object literal, made once:
 * objects of forty keys filled key by key, or copied by a rest pattern that leaves some out, take
 * V8's slow paths (bench/NOTES.md, issue 50). `valueOf` writes each key's value as an expression
 * of the argument `from`; the keys are quoted as JSON.
 */
export function literalMaker<From, To>(keys: readonly string[], valueOf: (key: string, index: number) => string): (from: From) => To {
  const literal = keys.map((key, i) => `${JSON.stringify(key)}: ${valueOf(key, i)}`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- keys of our own schemas and statements, quoted as JSON
  return new Function('from', `return { ${literal} };`) as (from: From) => To;
}
