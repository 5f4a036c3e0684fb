import { BadRequestError } from './errors';

/**
 * Glob patterns matched without backtracking: a pattern compiled to a regular expression (`*` as
 * `.*`) backtracks on many stars (`*a*a*...x` against a long name took seconds on the event loop),
 * and the glob libraries on npm (picomatch, minimatch) compile to such expressions. This matcher
 * walks the name once per star at most: O(name x pattern) in the worst case.
 */

/** One step of a pattern: any run of characters, or exactly one character that `test` accepts. */
type Step = { star: true } | { star: false; test: (c: string) => boolean };

/** The longest pattern taken (characters): longer than any name a filesystem keeps. */
export const MAX_GLOB = 1024;

export interface GlobSyntax {
  /** `?` (one character) and `[...]`, `[!...]` (one of a set, or none of it), as shell globs have; else only `*` is special. */
  classes: boolean;
  /** Letters match either case. */
  ignoreCase?: boolean;
}

export class Glob {
  private constructor(
    private readonly steps: readonly Step[],
    private readonly ignoreCase: boolean,
  ) {}

  /** A pattern as `syntax` reads it; refused (naming `field`) past MAX_GLOB characters. */
  static compile(pattern: string, syntax: GlobSyntax, field = 'pattern'): Glob {
    const chars = Array.from(syntax.ignoreCase ? pattern.toLowerCase() : pattern);
    if (chars.length > MAX_GLOB) throw new BadRequestError(`Invalid ${field}: a pattern of at most ${MAX_GLOB} characters`);
    const steps: Step[] = [];
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i]!;
      if (c === '*') {
        // a run of stars is one star
        if (steps.at(-1)?.star !== true) steps.push({ star: true });
      } else if (syntax.classes && c === '?') steps.push({ star: false, test: () => true });
      else if (syntax.classes && c === '[' && chars.indexOf(']', i + 2) !== -1) {
        const end = chars.indexOf(']', i + 2);
        const negated = chars[i + 1] === '!';
        const inClass = classOf(chars.slice(negated ? i + 2 : i + 1, end));
        steps.push({ star: false, test: (x) => inClass(x) !== negated });
        i = end;
      } else steps.push({ star: false, test: (x) => x === c });
    }
    return new Glob(steps, syntax.ignoreCase ?? false);
  }

  /**
   * Whether the whole of `text` matches. Greedy with one resume point: on a mismatch after a star,
   * the star takes one more character and the steps after it start again; an earlier star never
   * needs revisiting, as the later one can take whatever it would have.
   */
  matches(text: string): boolean {
    const chars = Array.from(this.ignoreCase ? text.toLowerCase() : text);
    const steps = this.steps;
    let s = 0;
    let t = 0;
    let starAt = -1;
    let resumeAt = 0;
    while (t < chars.length) {
      const step = steps[s];
      if (step !== undefined && step.star) {
        starAt = s++;
        resumeAt = t;
      } else if (step !== undefined && step.test(chars[t]!)) {
        s += 1;
        t += 1;
      } else if (starAt !== -1) {
        s = starAt + 1;
        t = ++resumeAt;
      } else return false;
    }
    while (steps[s]?.star === true) s += 1;
    return s === steps.length;
  }
}

/** A class's members (`[abc]`, ranges `a-z`; a `-` first or last is itself) as a test of one character. */
function classOf(members: readonly string[]): (c: string) => boolean {
  const single = new Set<string>();
  const ranges: [number, number][] = [];
  for (let k = 0; k < members.length; k += 1) {
    if (members[k + 1] === '-' && k + 2 < members.length) {
      ranges.push([members[k]!.codePointAt(0)!, members[k + 2]!.codePointAt(0)!]);
      k += 2;
    } else single.add(members[k]!);
  }
  return (c) => {
    if (single.has(c)) return true;
    const code = c.codePointAt(0)!;
    return ranges.some(([low, high]) => code >= low && code <= high);
  };
}
