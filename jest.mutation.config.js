'use strict';
// Core's unit tests alone, for `npm run test:mutation` (StrykerJS runs them against each mutant).
const { readFileSync } = require('node:fs');

const swcOptions = { ...JSON.parse(readFileSync(`${__dirname}/.swcrc.json`, 'utf8')), swcrc: false };

module.exports = {
  rootDir: `${__dirname}/packages/core`,
  testEnvironment: 'node',
  // instrumented code runs slower than in npm test
  testTimeout: 60_000,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  // a mutant's run loads only the spec files that hold its covering tests (see mutation/sequencer.js)
  setupFilesAfterEnv: [`${__dirname}/mutation/recordTestNames.js`],
  testSequencer: `${__dirname}/mutation/sequencer.js`,
};
