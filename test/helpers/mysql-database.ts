// Tests that need a MariaDB database of their own, fresh on every run, drop it first (and after).
import mysql from 'mysql2/promise';

export async function dropMysqlDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const connection = await mysql.createConnection({ host: parsed.hostname, port: Number(parsed.port || 3306), user: parsed.username || 'root', password: parsed.password });
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${parsed.pathname.slice(1)}\``);
  } finally {
    await connection.end();
  }
}
