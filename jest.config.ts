import type { Config } from 'jest';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// One transform for every project: swc strips types fast; `npm run typecheck` does the type checking.
const swcOptions = { ...JSON.parse(readFileSync(`${__dirname}/.swcrc.json`, 'utf8')), swcrc: false };

const moduleNameMapper = {
  '^@xfer/config$': '<rootDir>/../../packages/config/src/index.ts',
  '^@xfer/core$': '<rootDir>/../../packages/core/src/index.ts',
  '^@xfer/core/contracts$': '<rootDir>/../../packages/core/src/testing/contracts/index.ts',
  '^@xfer/core/testing$': '<rootDir>/../../packages/core/src/testing/index.ts',
  '^@xfer/persistence/testing$': '<rootDir>/../../packages/persistence/src/testing/index.ts',
  '^@xfer/persistence$': '<rootDir>/../../packages/persistence/src/index.ts',
  '^@xfer/storage$': '<rootDir>/../../packages/storage/src/index.ts',
  '^@xfer/server-kit/testing$': '<rootDir>/../../packages/server-kit/src/testing/index.ts',
  '^@xfer/server-kit$': '<rootDir>/../../packages/server-kit/src/index.ts',
  '^@xfer/runtime$': '<rootDir>/../../packages/runtime/src/index.ts',
  '^@xfer/api$': '<rootDir>/../../apps/api/src/index.ts',
  '^@xfer/helper-pages$': '<rootDir>/../../apps/helper-pages/src/index.ts',
  '^@xfer/helper-pages/settings$': '<rootDir>/../../apps/helper-pages/src/settings.ts',
  '^@xfer/console$': '<rootDir>/../../apps/console/src/index.ts',
  '^@xfer/console/registration$': '<rootDir>/../../apps/console/src/registration.ts',
  '^@xfer/node$': '<rootDir>/../../apps/node/src/index.ts',
};

const project = (dir: string): Config => ({
  displayName: dir,
  rootDir: `<rootDir>/${dir}`,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/src/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  moduleNameMapper,
});

const config: Config = {
  // end-to-end tests run many requests against real databases; CI machines can be slower than ours
  testTimeout: 60_000,
  // at least two workers, even on two cores (jest's default there is one): the suites mostly wait on
  // child processes, servers and databases, and two at a time took 590 s where one took 978 s
  maxWorkers: Math.max(2, availableParallelism() - 1),
  globalSetup: '<rootDir>/jest.global-setup.js',
  globalTeardown: '<rootDir>/jest.global-teardown.js',
  projects: ['packages/config', 'packages/core', 'packages/persistence', 'packages/storage', 'packages/server-kit', 'packages/runtime', 'apps/api', 'apps/helper-pages', 'apps/console', 'apps/node', 'apps/cli'].map(project),
};

export default config;
