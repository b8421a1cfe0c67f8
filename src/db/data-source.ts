// One DataSource factory for both engines: MySQL/MariaDB (`mysql://user:pass@host:port/db`) and the
// embedded SQLite default (`sqlite:/path/file.sqlite`). The schema always comes from migrations.
import fs from 'node:fs';
import path from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { config } from '../config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export type DatabaseKind = 'mysql' | 'sqlite';

export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('mysql://') || url.startsWith('mariadb://')) return 'mysql';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error('DATABASE_URL must start with mysql:// or sqlite:');
}

export function dataSourceOptions(url: string, poolSize = config().databasePoolSize): DataSourceOptions {
  const common = { entities: ENTITIES, migrations: MIGRATIONS, synchronize: false, logging: false } as const;
  if (databaseKind(url) === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return { ...common, type: 'better-sqlite3', database: file, enableWAL: true, prepareDatabase: (db: { pragma(s: string): unknown }) => { db.pragma('busy_timeout = 5000'); } };
  }
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return {
    ...common,
    type: 'mysql',
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    username: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.replace(/^\//, ''),
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    poolSize,
  };
}

export async function openDataSource(url: string): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(url));
  await dataSource.initialize();
  return dataSource;
}
