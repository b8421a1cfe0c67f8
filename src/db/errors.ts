// What a database error means, from the driver's code (mysql2 and better-sqlite3; TypeORM wraps
// them and keeps the original as `driverError`).

/** The driver's error code, whether or not TypeORM wrapped the error. */
function driverCode(error: unknown): string | null {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : null;
}

/** A unique key already holds the row (a concurrent insert won). */
export function isDuplicateKeyError(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The server rolled the transaction back as a deadlock victim, or SQLite found the file locked. */
export function isDeadlock(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_LOCK_DEADLOCK' || code === 'SQLITE_BUSY';
}

/** Driver codes of a database that cannot be reached right now (mysql2 / node sockets). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN']);

/** The driver code when the error says the database cannot be reached, else null. */
export function databaseUnreachable(error: unknown): string | null {
  const code = driverCode(error);
  return code !== null && UNREACHABLE.has(code) ? code : null;
}
