'use strict';
// Where the mutation runs keep, per test file, the full names of its tests (see sequencer.js).
const { createHash } = require('node:crypto');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const sha1 = (text) => createHash('sha1').update(text).digest('hex');

/** One folder per checkout or Stryker sandbox (a sandbox's path is new on every run), outside it. */
const testNamesDir = join(tmpdir(), `xfer-test-names-${sha1(join(__dirname, '..')).slice(0, 16)}`);

function testNamesFile(testPath) {
  return join(testNamesDir, `${sha1(testPath)}.json`);
}

module.exports = { testNamesFile };
