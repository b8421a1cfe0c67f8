// Frozen with the migrations (docs/architecture.md, "Layers"): whether a migration runs on
// MySQL/MariaDB or on SQLite, as src/db/dialect.ts said when they were written. Never edit.
import type { EntityManager, QueryRunner } from 'typeorm';

export function isMysql(source: QueryRunner | EntityManager): boolean {
  const type = source.connection.options.type;
  return type === 'mysql' || type === 'mariadb';
}
