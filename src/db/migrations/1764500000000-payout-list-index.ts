// Payout lists at a million rows (bench/REPORT.md): the search suffix index and the
// per-scope payout count of src/read-models/payout-search-index.ts, backfilled from existing rows.
import { Table, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';
import { forEachPayoutTextBatch, insertSuffixes } from './helpers/payout-search';

const BATCH = 500;

export class PayoutListIndex1764500000000 implements MigrationInterface {
  name = 'PayoutListIndex1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = !isMysql(queryRunner);
    await queryRunner.createTable(new Table({
      name: 'payout_scopes',
      columns: [
        // SQLite only auto-increments an INTEGER PRIMARY KEY.
        { name: 'id', type: sqlite ? 'integer' : 'bigint', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'merchant_id', type: 'varchar', length: '32' },
        { name: 'livemode', type: 'boolean' },
        { name: 'payout_count', type: 'bigint' },
      ],
      uniques: [new TableUnique({ name: 'uq_payout_scopes_scope', columnNames: ['merchant_id', 'livemode'] })],
    }));
    await queryRunner.createTable(new Table({
      name: 'payout_search_suffixes',
      columns: [
        { name: 'scope_id', type: 'bigint', isPrimary: true },
        // Bytes, compared as bytes: no collation padding or folding.
        { name: 'suffix', type: sqlite ? 'blob' : 'varbinary', length: sqlite ? undefined : '48', isPrimary: true },
        { name: 'payout_seq', type: 'bigint', isPrimary: true },
        // Character position in `search_text`: keeps rows unique when a payout repeats a suffix.
        { name: 'pos', type: 'smallint', isPrimary: true },
      ],
    }));

    // Backfill: counts per scope, then the suffixes of every existing payout.
    await queryRunner.query(
      'INSERT INTO payout_scopes (merchant_id, livemode, payout_count) SELECT merchant_id, livemode, COUNT(*) FROM payouts GROUP BY merchant_id, livemode',
    );
    const scopes = (await queryRunner.query('SELECT id, merchant_id, livemode FROM payout_scopes')) as Array<{ id: number | string; merchant_id: string; livemode: unknown }>;
    for (const scope of scopes) {
      await forEachPayoutTextBatch(queryRunner.manager, { merchantId: scope.merchant_id, livemode: scope.livemode }, BATCH, (rows) => insertSuffixes(queryRunner.manager, Number(scope.id), rows));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('payout_search_suffixes');
    await queryRunner.dropTable('payout_scopes');
  }
}
