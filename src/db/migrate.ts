// `npm run migrate`: creates the MySQL database if needed, then runs pending migrations.
import { config } from '../config';
import { ensureDatabase } from './ensure-database';
import { openDataSource } from './data-source';

export async function migrate(url: string): Promise<string[]> {
  await ensureDatabase(url);
  const dataSource = await openDataSource(url);
  try {
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  migrate(config().databaseUrl).then(
    (ran) => { console.log(ran.length ? `migrations applied: ${ran.join(', ')}` : 'schema up to date'); },
    (error: unknown) => { console.error(`migrate failed: ${error instanceof Error ? error.message : String(error)}`); process.exit(1); },
  );
}
