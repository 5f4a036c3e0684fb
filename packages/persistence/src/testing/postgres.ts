import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The admin URL of the test Postgres server (see jest.global-setup.js), or undefined when there is none. */
export function testPostgresUrl(): string | undefined {
  return process.env.XFER_TEST_POSTGRES_URL || undefined;
}

/** A new empty database on the test server, so no test sees what another left behind. */
export async function freshPostgresDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `xfer_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

export interface TestBackend {
  name: 'sqlite' | 'postgres';
  create: () => Promise<TestDatabase>;
}

/** The databases every end-to-end suite runs on: SQLite always, Postgres when a test server is up. */
export function testBackends(): TestBackend[] {
  const backends: TestBackend[] = [{ name: 'sqlite', create: async () => ({ url: 'sqlite::memory:', drop: async () => undefined }) }];
  const postgres = testPostgresUrl();
  if (postgres) backends.push({ name: 'postgres', create: () => freshPostgresDatabase(postgres) });
  return backends;
}
