// Creates the MySQL/MariaDB database named in the URL when it is missing (no-op for SQLite).
import mysql from 'mysql2/promise';
import { databaseKind } from './data-source';

export async function ensureDatabase(url: string): Promise<void> {
  if (databaseKind(url) !== 'mysql') return;
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  const name = parsed.pathname.replace(/^\//, '');
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`invalid database name "${name}"`);
  const connection = await mysql.createConnection({
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username || 'root'),
    password: decodeURIComponent(parsed.password),
  });
  try {
    await connection.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
}
