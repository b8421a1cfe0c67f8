// Payout lists at a million rows, part two (bench/REPORT.md): payout counts per
// (scope, status, currency, brand), so total_count under those filters is a sum over a few rows
// instead of a count over every match; and indexes for the creation-time and amount-range filters.
import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class PayoutCounts1764700000000 implements MigrationInterface {
  name = 'PayoutCounts1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(new Table({
      name: 'payout_counts',
      columns: [
        { name: 'scope_id', type: 'bigint', isPrimary: true },
        { name: 'status', type: 'varchar', length: '20', isPrimary: true },
        { name: 'currency', type: 'varchar', length: '3', isPrimary: true },
        { name: 'destination_brand', type: 'varchar', length: '16', isPrimary: true },
        { name: 'payout_count', type: 'bigint' },
      ],
    }));
    await queryRunner.query(`
      INSERT INTO payout_counts (scope_id, status, currency, destination_brand, payout_count)
      SELECT s.id, p.status, p.currency, p.destination_brand, COUNT(*)
      FROM payouts p JOIN payout_scopes s ON s.merchant_id = p.merchant_id AND s.livemode = p.livemode
      GROUP BY s.id, p.status, p.currency, p.destination_brand`);
    await queryRunner.createIndex('payouts', new TableIndex({ name: 'idx_payouts_scope_created', columnNames: ['merchant_id', 'livemode', 'created_at'] }));
    await queryRunner.createIndex('payouts', new TableIndex({ name: 'idx_payouts_scope_amount_range', columnNames: ['merchant_id', 'livemode', 'amount'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('payouts', 'idx_payouts_scope_amount_range');
    await queryRunner.dropIndex('payouts', 'idx_payouts_scope_created');
    await queryRunner.dropTable('payout_counts');
  }
}
