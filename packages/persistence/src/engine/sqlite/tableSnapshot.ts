import type { DataSource, EntityManager } from 'typeorm';

/** Every row of every table of an SQLite database, as read: what a stand-in's reset goes back to. */
export interface TableSnapshot {
  tables: { name: string; columns: string[]; rows: unknown[][] }[];
}

/**
 * The tables a snapshot holds: the database's own, not SQLite's, not the migrations' record, not
 * the search index (its triggers on `endpoints` rebuild it as the rows come back), and not the
 * signing keys nor the node call keys (they outlive a reset: what was signed before it still
 * verifies, a client's cached JWKS stays right, the stand-in makes its key after it starts, and
 * its nodes keep verifying its calls).
 */
async function ownTables(db: DataSource | EntityManager): Promise<string[]> {
  const rows = (await db.query(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('migrations', 'signing_keys', 'node_call_keys') AND name NOT LIKE 'endpoint_search%' ORDER BY name",
  )) as { name: string }[];
  return rows.map((r) => r.name);
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Reads every row of an SQLite database (a throwaway one: a stand-in's seed). */
export async function snapshotTables(dataSource: DataSource): Promise<TableSnapshot> {
  const tables: TableSnapshot['tables'] = [];
  for (const name of await ownTables(dataSource)) {
    const columns = ((await dataSource.query(`PRAGMA table_info(${quoted(name)})`)) as { name: string }[]).map((c) => c.name);
    const rows = ((await dataSource.query(`SELECT * FROM ${quoted(name)}`)) as Record<string, unknown>[]).map((row) => columns.map((c) => row[c]));
    tables.push({ name, columns, rows });
  }
  return { tables };
}

/**
 * Puts an SQLite database back to a snapshot, within the transaction of `manager`: every table
 * emptied and refilled (rows written since are gone, rows deleted since are back), the search index
 * rebuilt.
 */
export async function restoreTables(manager: EntityManager, snapshot: TableSnapshot): Promise<void> {
  for (const name of await ownTables(manager)) await manager.query(`DELETE FROM ${quoted(name)}`);
  for (const { name, columns, rows } of snapshot.tables) {
    const insert = `INSERT INTO ${quoted(name)} (${columns.map(quoted).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    for (const row of rows) await manager.query(insert, row);
  }
  await manager.query("INSERT INTO endpoint_search (endpoint_search) VALUES ('rebuild')");
}
