// The shared MariaDB on these machines starts with a 128 MiB InnoDB buffer pool, far below the
// 3 GB a seeded full run holds; a production database is sized to keep its hot indexes in memory.
// The bench raises the pool for its run (online resize) and puts the old size back afterwards.
import { withDb } from './seed';

const GIB = 1024 ** 3;

export interface BufferPool {
  /** Size during the run, in bytes. */
  size: number;
  restore(): Promise<void>;
}

async function poolSize(databaseUrl: string): Promise<number> {
  return withDb(databaseUrl, async (db) => {
    const [rows] = await db.query('SELECT @@innodb_buffer_pool_size AS size');
    return Number((rows as Array<{ size: number | string }>)[0]!.size);
  });
}

async function resize(databaseUrl: string, bytes: number): Promise<void> {
  await withDb(databaseUrl, (db) => db.query(`SET GLOBAL innodb_buffer_pool_size = ${Math.floor(bytes)}`));
  // The resize runs in the background; wait until the server reports the new size.
  for (let i = 0; i < 120 && Math.abs(await poolSize(databaseUrl) - bytes) > 128 * 1024 * 1024; i += 1) {
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Raises the pool to `gib` GiB when it is smaller; `restore()` puts the earlier size back. */
export async function ensureBufferPool(databaseUrl: string, gib: number, log: (line: string) => void): Promise<BufferPool> {
  const before = await poolSize(databaseUrl);
  const wanted = gib * GIB;
  if (before >= wanted) return { size: before, restore: async () => undefined };
  try {
    await resize(databaseUrl, wanted);
  } catch (error) {
    log(`could not resize the InnoDB buffer pool (${error instanceof Error ? error.message : String(error)}); running with ${before} bytes`);
    return { size: before, restore: async () => undefined };
  }
  const size = await poolSize(databaseUrl);
  log(`InnoDB buffer pool ${(before / GIB).toFixed(2)} -> ${(size / GIB).toFixed(2)} GiB for this run`);
  return { size, restore: () => resize(databaseUrl, before).catch(() => undefined) };
}
