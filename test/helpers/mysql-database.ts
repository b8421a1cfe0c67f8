// Tests that need a MariaDB database of their own, fresh on every run, drop it first (and after).
import mysql from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { ensureDatabase } from '../../src/db/ensure-database';
import { migrate } from '../../src/db/migrate';

export async function dropMysqlDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const connection = await mysql.createConnection({ host: parsed.hostname, port: Number(parsed.port || 3306), user: parsed.username || 'root', password: parsed.password });
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${parsed.pathname.slice(1)}\``);
  } finally {
    await connection.end();
  }
}

/**
 * A database of the test's own, migrated to the latest schema, for the tests of one `describe`:
 * a MariaDB one is dropped before and after; an SQLite one lives in the test's temporary file.
 * Answers the data source, open from `beforeAll` on.
 */
export function useMigratedDatabase(url: string): () => DataSource {
  const mariadb = !url.startsWith('sqlite:');
  let dataSource: DataSource | null = null;
  beforeAll(async () => {
    if (mariadb) await dropMysqlDatabase(url);
    await ensureDatabase(url);
    await migrate(url);
    dataSource = await openDataSource(url);
  }, 120_000);
  afterAll(async () => {
    await dataSource?.destroy();
    if (mariadb) await dropMysqlDatabase(url);
  });
  return () => dataSource!;
}
