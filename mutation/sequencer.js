'use strict';
// testSequencer of the mutation runs. StrykerJS runs each mutant with jest's --findRelatedTests
// and a testNamePattern of the tests that cover it; but every spec imports the test kit, which
// imports all of core, so every spec file is "related" and jest loads them all to find a few
// tests (seconds per mutant). Here only the files that hold a matching test run. A file whose
// names are not known yet (the dry run records them) always runs: never fewer tests than asked.
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { testNamesFile } = require('./testNames');

class CoveringFilesFirst extends Sequencer {
  constructor(options) {
    super(options);
    this.pattern = options.globalConfig.testNamePattern;
  }

  sort(tests) {
    const sorted = super.sort(tests);
    if (!this.pattern) return sorted;
    // jest matches testNamePattern case-insensitively
    const matches = new RegExp(this.pattern, 'i');
    return sorted.filter((test) => {
      let names;
      try {
        names = JSON.parse(readFileSync(testNamesFile(test.path), 'utf8')).names;
      } catch {
        return true;
      }
      return names.some((name) => matches.test(name));
    });
  }
}

module.exports = CoveringFilesFirst;
