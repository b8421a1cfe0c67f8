// The migration that gives a Payment create's Idempotency-Key one scope per endpoint, whichever
// shape asks: Shape B's claims move to the endpoint's operation, on MariaDB and on the embedded
// SQLite default; a claim whose key the other shape already holds stays where it is.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/db/data-source';
import { migrate } from '../../src/db/migrate';
import { IdempotencyScopePerEndpoint1765200000000 } from '../../src/db/migrations/1765200000000-idempotency-scope-per-endpoint';
import { TEST_ENV } from '../helpers/test-env';

const sqliteFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'idempotency-scope-')), 'payments.sqlite');
const ENGINES: Array<[string, string]> = [['MariaDB', TEST_ENV.databaseUrl], ['SQLite', `sqlite:${sqliteFile}`]];

describe.each(ENGINES)('%s', (engine, url) => {
  let dataSource: DataSource;
  const apiKeyId = `key_${randomBytes(8).toString('hex')}`;

  beforeAll(async () => {
    if (engine === 'SQLite') await migrate(url);
    dataSource = await openDataSource(url);
  });
  afterAll(async () => { await dataSource.destroy(); });

  async function claim(operation: string, key: string, objectId: string): Promise<void> {
    await dataSource.query(
      `INSERT INTO idempotency_records (api_key_id, operation, idempotency_key, fingerprint, object_id, state, response_status, response_body, locked_until_ms, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, 'completed', 201, '{}', 0, 1, 4000000000)`,
      [apiKeyId, operation, key, 'f'.repeat(64), objectId],
    );
  }

  async function claims(): Promise<Array<{ operation: string; key: string; object: string }>> {
    const rows = (await dataSource.query(
      'SELECT operation, idempotency_key AS `key`, object_id AS object FROM idempotency_records WHERE api_key_id = ? ORDER BY object_id', [apiKeyId],
    )) as Array<{ operation: string; key: string; object: string }>;
    return rows.map((r) => ({ operation: r.operation, key: r.key, object: r.object }));
  }

  it("moves Shape B's create claims to the endpoint's operation, leaving a claim whose key is taken", async () => {
    await claim('payments.create_b', 'k1', 'pay_1');
    await claim('payments.create_hosted_b', 'k2', 'pay_2');
    await claim('payments.create', 'k3', 'pay_3');
    await claim('payments.create_b', 'k3', 'pay_4'); // the same key in both shapes: cannot move
    await claim('payments.refund_b', 'k5', 're_5'); // its own endpoint: stays

    const runner = dataSource.createQueryRunner();
    try {
      await new IdempotencyScopePerEndpoint1765200000000().up(runner);
    } finally {
      await runner.release();
    }

    expect(await claims()).toEqual([
      { operation: 'payments.create', key: 'k1', object: 'pay_1' },
      { operation: 'payments.create_hosted', key: 'k2', object: 'pay_2' },
      { operation: 'payments.create', key: 'k3', object: 'pay_3' },
      { operation: 'payments.create_b', key: 'k3', object: 'pay_4' },
      { operation: 'payments.refund_b', key: 'k5', object: 're_5' },
    ]);
  });
});
