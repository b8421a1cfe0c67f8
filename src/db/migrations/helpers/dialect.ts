// Frozen with the migrations (docs/architecture.md, "Layers"): whether a migration runs on
// MySQL/MariaDB or on SQLite, as src/db/dialect.ts said when they were written, and the
// collations that differ between MariaDB and MySQL 8. Append only: never change what a function
// returns for a server it already handled. No migration names an engine-specific collation
// itself (test/unit/migration-collations.test.ts): it asks here.
import type { EntityManager, QueryRunner } from 'typeorm';

export function isMysql(source: QueryRunner | EntityManager): boolean {
  const type = source.connection.options.type;
  return type === 'mysql' || type === 'mariadb';
}

/** Binary NO PAD collations of utf8mb4, in order of preference: MariaDB's, MySQL 8's. */
const BINARY_NO_PAD = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'];

/**
 * The server's binary NO PAD collation of utf8mb4 (bytes compared as bytes, `key` and `key `
 * distinct), asked from the server itself: `mysql` and `mariadb` are one TypeORM type each for
 * both engines, so the driver option cannot tell them apart.
 */
export async function binaryNoPadCollation(queryRunner: QueryRunner): Promise<string> {
  const rows = (await queryRunner.query(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (${BINARY_NO_PAD.map((name) => `'${name}'`).join(', ')})`,
  )) as Array<{ name: string }>;
  const names = rows.map((row) => row.name);
  const found = BINARY_NO_PAD.find((name) => names.includes(name));
  if (!found) throw new Error('the database server has no binary NO PAD collation for utf8mb4 (MariaDB 10.2+ or MySQL 8.0.17+ needed)');
  return found;
}
