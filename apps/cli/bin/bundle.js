'use strict';
/**
 * The `xfer` command as one file (dist/xfer.bundle.js, made by scripts/bundle.js after the
 * TypeScript build) with V8's code cache of a stand-in's start: a start that neither resolves nor
 * compiles some 1,800 modules one by one. Used only while it is newer than every project's build,
 * so a TypeScript build made since (`tsc -b` alone) is never shadowed by an older bundle.
 */
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const vm = require('node:vm');

/** Set by scripts/bundle.js on the start it makes the cache from: written as that process exits. */
const WRITE_CACHE = 'XFER_WRITE_BUNDLE_CACHE';

/** What the bundle's text begins and ends with (scripts/bundle.js writes them): a module's wrapper, as Module.wrap's. */
const MODULE_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

const modified = (file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs;

/** The bundle of a build directory (`dist`): its files, whether it is fresh, and running it. */
function bundleIn(dist) {
  const files = {
    bundle: join(dist, 'xfer.bundle.js'),
    cache: join(dist, 'xfer.bundle.cache'),
    /** The build files the bundle was made from (each project's .tsbuildinfo, relative to dist). */
    manifest: join(dist, 'xfer.bundle.json'),
  };

  /** Whether a bundle exists and no project was built after it. */
  function isFresh() {
    const bundled = modified(files.bundle);
    if (bundled === undefined) return false;
    let builds;
    try {
      builds = JSON.parse(readFileSync(files.manifest, 'utf8')).builds;
    } catch {
      return false;
    }
    return Array.isArray(builds) && builds.length > 0 && builds.every((build) => (modified(join(dist, build)) ?? Infinity) <= bundled);
  }

  /** The bundle compiled (with its code cache where V8 takes it: another Node.js or other flags refuse it). */
  function compile(cachedData) {
    // esbuild writes ASCII only (its default charset): read as one-byte text, without UTF-8
    // decoding, into a string Node keeps outside V8's heap; the file holds its module wrapper
    // (MODULE_WRAPPER), so nothing concatenated to it copies it onto the heap
    return new vm.Script(readFileSync(files.bundle, 'latin1'), { filename: files.bundle, cachedData });
  }

  /** The code cache, if there is one. */
  function readCache() {
    try {
      return readFileSync(files.cache);
    } catch {
      return undefined;
    }
  }

  /** Runs the bundle as the main module would run; false when there is none to run, or it is stale. */
  function run() {
    if (!isFresh()) return false;
    const writing = process.env[WRITE_CACHE] === '1';
    const script = compile(writing ? undefined : readCache());
    if (writing) process.once('exit', () => writeFileSync(files.cache, script.createCachedData()));
    const bundle = new Module(files.bundle, module);
    bundle.filename = files.bundle;
    bundle.paths = Module._nodeModulePaths(dist);
    script.runInThisContext().call(bundle.exports, bundle.exports, Module.createRequire(files.bundle), bundle, files.bundle, dist);
    return true;
  }

  return { ...files, isFresh, compile, run };
}

module.exports = { MODULE_WRAPPER, WRITE_CACHE, bundleIn, command: bundleIn(join(__dirname, '..', 'dist')) };
