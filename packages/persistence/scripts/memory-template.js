'use strict';
/**
 * After the TypeScript build (`npm run build`): the stand-in's starting database, migrated and
 * serialized (packages/persistence/src/engine/sqlite/memoryTemplate.ts says why and when it is used).
 */
const { MEMORY_TEMPLATE, writeMemoryTemplate } = require('../dist');

writeMemoryTemplate(MEMORY_TEMPLATE.file).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
