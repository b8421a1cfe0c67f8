// Payout lists at a million rows, part three (bench/REPORT.md): per-scope counts of the
// payouts that contain each one- and two-character text, so that the total_count of a short
// search is one row read (src/read-models/payout-search-index.ts), backfilled from existing rows.
import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';
import { addGramCounts, forEachPayoutTextBatch, gramCounts } from './helpers/payout-search';

const BATCH = 2000;

export class PayoutSearchGrams1764800000000 implements MigrationInterface {
  name = 'PayoutSearchGrams1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = !isMysql(queryRunner);
    await queryRunner.createTable(new Table({
      name: 'payout_search_grams',
      columns: [
        { name: 'scope_id', type: 'bigint', isPrimary: true },
        // Up to two characters as UTF-8 bytes, compared as bytes like the suffixes.
        { name: 'gram', type: sqlite ? 'blob' : 'varbinary', length: sqlite ? undefined : '8', isPrimary: true },
        { name: 'payout_count', type: 'bigint' },
      ],
    }));

    const scopes = (await queryRunner.query('SELECT id, merchant_id, livemode FROM payout_scopes')) as Array<{ id: number | string; merchant_id: string; livemode: unknown }>;
    for (const scope of scopes) {
      const counts = new Map<string, number>();
      await forEachPayoutTextBatch(queryRunner.manager, { merchantId: scope.merchant_id, livemode: scope.livemode }, BATCH, (rows) => {
        gramCounts(rows.map((row) => row.searchText), counts);
      });
      await addGramCounts(queryRunner.manager, Number(scope.id), counts);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('payout_search_grams');
  }
}
