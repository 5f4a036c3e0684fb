import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * An empty, migrated database, serialized: the stand-in's in-memory database starts as a copy of
 * it (about 5 ms) instead of running every migration (45-60 ms of each start). `npm run build`
 * writes it after the TypeScript build; a template older than `build` (a `tsc -b` since may have
 * changed a migration) is not used, and the migrations run as without one (openMemoryEngine;
 * writeMemoryTemplate writes it).
 */
export interface MemoryTemplate {
  file: string;
  /** The build file the template must be newer than. */
  build: string;
}

/** Where the build writes it: beside this module, checked against persistence's own build. */
export const MEMORY_TEMPLATE: MemoryTemplate = { file: join(__dirname, 'memory-template.sqlite'), build: join(__dirname, '..', '..', '.tsbuildinfo') };

/** The template's bytes, if there is one and no build came after it. */
export function readMemoryTemplate(template: MemoryTemplate): Buffer | null {
  const written = statSync(template.file, { throwIfNoEntry: false })?.mtimeMs;
  const built = statSync(template.build, { throwIfNoEntry: false })?.mtimeMs;
  if (written === undefined || built === undefined || built > written) return null;
  try {
    return readFileSync(template.file);
  } catch {
    return null;
  }
}

/**
 * The better-sqlite3 constructor TypeORM calls (`new driver(':memory:', options)`) for a database
 * that starts as a copy of `bytes`: an object a constructor returns is what `new` gives.
 */
export function templateDriver(bytes: Buffer): (database: string, options: Database.Options) => Database.Database {
  return function openFromTemplate(_database: string, options: Database.Options) {
    return new Database(bytes, options);
  };
}
