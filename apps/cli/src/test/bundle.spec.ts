import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Bundle {
  bundle: string;
  cache: string;
  manifest: string;
  isFresh(): boolean;
  run(): boolean;
}

// bin/bundle.js is plain JavaScript: the command's loader, run before any TypeScript build output
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bundleIn, MODULE_WRAPPER } = require('../../bin/bundle') as { bundleIn: (dist: string) => Bundle; MODULE_WRAPPER: [string, string] };

describe('the bundle bin/xfer.js starts from', () => {
  let dist: string;
  // the bundle runs in Node's own context, not the test's: it says so in a file
  const ran = () => (existsSync(join(dist, 'ran')) ? readFileSync(join(dist, 'ran'), 'utf8') : undefined);
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);

  beforeEach(() => {
    dist = mkdtempSync(join(tmpdir(), 'xfer-bundle-spec-'));
    mkdirSync(join(dist, 'core'));
    writeFileSync(join(dist, '.tsbuildinfo'), '{}');
    writeFileSync(join(dist, 'core', '.tsbuildinfo'), '{}');
  });
  afterEach(() => rmSync(dist, { recursive: true, force: true }));

  /** A bundle that says it ran (with its own __filename), made at `seconds` from the two builds, in its module wrapper as scripts/bundle.js writes it. */
  const writeBundle = (seconds: number) => {
    const bundle = bundleIn(dist);
    writeFileSync(bundle.bundle, `${MODULE_WRAPPER[0]}require('node:fs').writeFileSync(require('node:path').join(__dirname, 'ran'), __filename);${MODULE_WRAPPER[1]}`);
    writeFileSync(bundle.manifest, JSON.stringify({ builds: ['.tsbuildinfo', 'core/.tsbuildinfo'] }));
    at(join(dist, '.tsbuildinfo'), 1_000);
    at(join(dist, 'core', '.tsbuildinfo'), 1_000);
    at(bundle.bundle, seconds);
    return bundle;
  };

  it('runs a bundle made after every build it names, as a module with its own file name', () => {
    const bundle = writeBundle(2_000);
    expect(bundle.run()).toBe(true);
    expect(ran()).toBe(bundle.bundle);
  });

  it('leaves a bundle that a project was built after (tsc -b since): the TypeScript build runs instead', () => {
    const bundle = writeBundle(2_000);
    at(join(dist, 'core', '.tsbuildinfo'), 3_000);
    expect(bundle.isFresh()).toBe(false);
    expect(bundle.run()).toBe(false);
    expect(ran()).toBeUndefined();
  });

  it('leaves a bundle whose builds are missing or unnamed, and runs none where there is none', () => {
    const bundle = writeBundle(2_000);
    rmSync(join(dist, 'core', '.tsbuildinfo'));
    expect(bundle.isFresh()).toBe(false);
    writeFileSync(bundle.manifest, JSON.stringify({ builds: [] }));
    expect(bundle.isFresh()).toBe(false);
    writeFileSync(bundle.manifest, 'not json');
    expect(bundle.isFresh()).toBe(false);
    expect(bundleIn(join(dist, 'core')).run()).toBe(false);
    expect(ran()).toBeUndefined();
  });

  it('runs a bundle whose code cache V8 refuses (another Node.js): compiled from its source', () => {
    const bundle = writeBundle(2_000);
    writeFileSync(bundle.cache, 'a cache of something else');
    expect(bundle.run()).toBe(true);
    expect(ran()).toBe(bundle.bundle);
  });
});
