// Which database a connection talks to: MySQL/MariaDB, or SQLite for the embedded default
// (src/db/data-source.ts). The one place that reads TypeORM's driver type.
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

export function isMysql(source: DataSource | EntityManager | QueryRunner): boolean {
  const type = ('connection' in source ? source.connection : source).options.type;
  return type === 'mysql' || type === 'mariadb';
}
