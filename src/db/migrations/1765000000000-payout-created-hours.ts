// Payout lists at a million rows, part four (bench/REPORT.md): per-scope counts and `seq`
// ranges of the payouts created in each hour, so a creation-time window is counted from its whole
// hours and paged inside the `seq` range they hold (src/read-models/payout-search-index.ts),
// backfilled from existing rows.
import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { backfillCreatedHours } from './helpers/payout-search';

export class PayoutCreatedHours1765000000000 implements MigrationInterface {
  name = 'PayoutCreatedHours1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(new Table({
      name: 'payout_created_hours',
      columns: [
        { name: 'scope_id', type: 'bigint', isPrimary: true },
        { name: 'hour', type: 'bigint', isPrimary: true }, // created_at div 3600
        { name: 'payout_count', type: 'bigint' },
        { name: 'min_seq', type: 'bigint' },
        { name: 'max_seq', type: 'bigint' },
      ],
    }));
    await backfillCreatedHours(queryRunner.manager);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('payout_created_hours');
  }
}
