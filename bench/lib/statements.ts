// Statements MariaDB ran for its clients while a step ran (the server's `Questions` counter), per
// 2xx answer. A change in round trips shows here as a count, exact where this machine's CPU figures
// move by a tenth from one run to the next. It counts every client: the API, the workers and their
// background sweeps.
import type mysql from 'mysql2/promise';
import { connect } from './seed';

async function questions(db: mysql.Connection): Promise<number> {
  const [rows] = await db.query("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number((rows as Array<{ Value: string }>)[0]!.Value);
}

/** Starts counting; the returned function ends it and gives the statements run since (its own excluded). */
export async function meterStatements(url: string): Promise<() => Promise<number>> {
  const db = await connect(url);
  const start = await questions(db);
  return async () => {
    try {
      return (await questions(db)) - start - 1;
    } finally {
      await db.end();
    }
  };
}
