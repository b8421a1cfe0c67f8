// Whether the database answers now, asked on a connection of its own: a pool busy with real work
// must not look like an outage, and a pool whose connections broke must not hide that new ones work.
import mysql from 'mysql2/promise';
import type { DataSource } from 'typeorm';

export interface DatabaseProbe {
  /** True when the database answered `SELECT 1` within `timeoutMs`. */
  check(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

function within<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function databaseProbe(dataSource: DataSource): DatabaseProbe {
  const options = dataSource.options;
  if (options.type !== 'mysql') {
    // The embedded SQLite file is in the process: it is there as long as the process is.
    return { check: async (timeoutMs) => within(dataSource.query('SELECT 1'), timeoutMs).then(() => true, () => false), close: async () => {} };
  }
  let connection: mysql.Connection | null = null;
  let checking: Promise<boolean> | null = null;
  const forget = () => {
    connection?.destroy();
    connection = null;
  };
  const connect = async (timeoutMs: number): Promise<mysql.Connection> => {
    const connecting = mysql.createConnection({
      host: options.host, port: options.port, user: options.username, password: options.password, database: options.database, connectTimeout: timeoutMs,
    });
    try {
      const opened = await within(connecting, timeoutMs);
      opened.on('error', forget);
      return opened;
    } catch (error) {
      connecting.then((late) => late.destroy(), () => undefined); // one that opens too late is not kept
      throw error;
    }
  };
  const ask = async (timeoutMs: number): Promise<boolean> => {
    try {
      connection ??= await connect(timeoutMs);
      await within(connection.query('SELECT 1'), timeoutMs);
      return true;
    } catch {
      forget();
      return false;
    }
  };
  return {
    // Concurrent checks (the watchdog and a health request) share one question.
    check(timeoutMs) {
      checking ??= ask(timeoutMs).finally(() => { checking = null; });
      return checking;
    },
    async close() {
      await checking;
      forget();
    },
  };
}
