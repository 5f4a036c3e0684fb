import type { DataSource } from 'typeorm';
import { afterWrite } from './afterWrite';

/** Every row of every table of an SQLite database, as read: what a stand-in's reset goes back to. */
export interface TableSnapshot {
  tables: { name: string; columns: string[]; rows: unknown[][] }[];
}

/**
 * The tables a snapshot holds: the database's own, not SQLite's, not the migrations' record, and
 * not the search index (its triggers on `endpoints` rebuild it as the rows come back).
 */
async function ownTables(dataSource: DataSource): Promise<string[]> {
  const rows = (await dataSource.query(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'migrations' AND name NOT LIKE 'endpoint_search%' ORDER BY name",
  )) as { name: string }[];
  return rows.map((r) => r.name);
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Reads every row of an SQLite database (a throwaway one: a stand-in's seed). */
export async function snapshotTables(dataSource: DataSource): Promise<TableSnapshot> {
  if (dataSource.options.type !== 'better-sqlite3') throw new Error('table snapshots are for SQLite databases');
  const tables: TableSnapshot['tables'] = [];
  for (const name of await ownTables(dataSource)) {
    const columns = ((await dataSource.query(`PRAGMA table_info(${quoted(name)})`)) as { name: string }[]).map((c) => c.name);
    const rows = ((await dataSource.query(`SELECT * FROM ${quoted(name)}`)) as Record<string, unknown>[]).map((row) => columns.map((c) => row[c]));
    tables.push({ name, columns, rows });
  }
  return { tables };
}

/**
 * Puts an SQLite database back to a snapshot in one transaction: every table emptied and refilled
 * (rows written since are gone, rows deleted since are back), the search index rebuilt, and the
 * read caches told, as after any write.
 */
export async function restoreTables(dataSource: DataSource, snapshot: TableSnapshot): Promise<void> {
  try {
    await dataSource.transaction(async (manager) => {
      for (const name of await ownTables(dataSource)) await manager.query(`DELETE FROM ${quoted(name)}`);
      for (const { name, columns, rows } of snapshot.tables) {
        const insert = `INSERT INTO ${quoted(name)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
        for (const row of rows) await manager.query(insert, row);
      }
      await manager.query("INSERT INTO endpoint_search (endpoint_search) VALUES ('rebuild')");
    });
  } finally {
    afterWrite(dataSource);
  }
}
