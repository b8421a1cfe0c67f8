// Payouts (issue: payouts): the literal search column, the initiator IP, and a status index for
// the list filters. `search_text` holds lowercased text and is compared byte for byte on MySQL
// (utf8mb4_bin), so a search is case-insensitive only through the lowercasing: literal otherwise
// (no accent folding). SQLite compares it as given.
import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';

export class PayoutSearch1764000000000 implements MigrationInterface {
  name = 'PayoutSearch1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const binaryCollation = isMysql(queryRunner) ? 'utf8mb4_bin' : undefined;
    await queryRunner.addColumns('payouts', [
      new TableColumn({ name: 'initiator_ip_address', type: 'varchar', length: '45', isNullable: true }),
      new TableColumn({ name: 'search_text', type: 'text', isNullable: true, collation: binaryCollation }),
    ]);
    await queryRunner.createIndex('payouts', new TableIndex({
      name: 'idx_payouts_scope_status', columnNames: ['merchant_id', 'livemode', 'status', 'seq'],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('payouts', 'idx_payouts_scope_status');
    await queryRunner.dropColumn('payouts', 'search_text');
    await queryRunner.dropColumn('payouts', 'initiator_ip_address');
  }
}
