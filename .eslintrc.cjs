/* Legacy config format: run with ESLINT_USE_FLAT_CONFIG=false (see package.json "lint"). */
module.exports = {
  root: true,
  parser: '@typescript-eslint/parser',
  parserOptions: { ecmaVersion: 2022, sourceType: 'module' },
  plugins: ['@typescript-eslint'],
  extends: ['eslint:recommended', 'plugin:@typescript-eslint/recommended'],
  env: { node: true, es2022: true, jest: true },
  ignorePatterns: ['dist/', 'node_modules/'],
  rules: {
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    'no-console': 'off',
  },
  overrides: [
    {
      // The domain stays pure: frameworks and databases live in the adapters.
      files: ['packages/core/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: [
                  'express', 'express/*', 'typeorm', 'typeorm/*', 'inversify', 'inversify/*',
                  'class-validator', 'class-transformer', 'reflect-metadata', 'better-sqlite3', 'pg',
                  '@xfer/persistence', '@xfer/api', '@xfer/helper-pages',
                ],
                message: 'packages/core imports no framework or database package.',
              },
            ],
          },
        ],
      },
    },
    {
      // Express plumbing and settings stand below the database: neither reaches into persistence.
      files: ['packages/server-kit/**/*.ts', 'packages/config/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ group: ['@xfer/persistence', '@xfer/persistence/*', '@xfer/api', '@xfer/helper-pages', '@xfer/console'], message: 'server-kit and config import nothing from persistence or the apps.' }] },
        ],
      },
    },
    {
      // Storage adapters implement core's port over a filesystem: no database, no web framework, no app.
      files: ['packages/storage/**/*.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: ['@xfer/persistence', '@xfer/persistence/*', '@xfer/runtime', '@xfer/server-kit', '@xfer/api', '@xfer/helper-pages', '@xfer/console', 'express', 'express/*', 'typeorm', 'typeorm/*', 'inversify', 'pg', 'better-sqlite3'],
                message: 'packages/storage implements the storage port of @xfer/core over a filesystem; it imports no database, framework or app.',
              },
            ],
          },
        ],
      },
    },
    {
      // Apps are leaves: none imports another, and none opens the database (the process's runtime does).
      files: ['apps/api/src/**/*.ts', 'apps/helper-pages/src/**/*.ts', 'apps/console/src/**/*.ts', 'apps/node/src/**/*.ts'],
      excludedFiles: ['**/test/**', '**/*.spec.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          { patterns: [{ group: ['@xfer/persistence', '@xfer/persistence/*', '@xfer/api', '@xfer/helper-pages', '@xfer/console', '@xfer/node', '@xfer/cli', 'inversify'], message: 'apps take typed services from the runtime; they import no other app, no persistence and no container.' }] },
        ],
      },
    },
  ],
};
