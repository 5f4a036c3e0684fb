'use strict';
// setupFilesAfterEnv of the mutation runs: records the full name of every test that runs in this
// file (jest's "describe ... test" name, the id StrykerJS filters by), merged with what is known.
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { testNamesFile } = require('./testNames');

const names = new Set();
beforeEach(() => {
  names.add(expect.getState().currentTestName);
});
afterAll(() => {
  const { testPath } = expect.getState();
  const file = testNamesFile(testPath);
  let known = [];
  try {
    known = JSON.parse(readFileSync(file, 'utf8')).names;
  } catch {
    // first run of this file
  }
  const all = new Set([...known, ...names]);
  if (all.size === known.length) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ testPath, names: [...all] }));
});
