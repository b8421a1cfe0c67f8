// Payment lists are ordered by created_at (then id): index that order per merchant and mode, with
// and without a status filter, so a page is an index range scan.
import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class PaymentListIndex1764600000000 implements MigrationInterface {
  name = 'PaymentListIndex1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('payments', new TableIndex({ name: 'idx_payments_scope_created', columnNames: ['merchant_id', 'livemode', 'created_at'] }));
    await queryRunner.createIndex('payments', new TableIndex({ name: 'idx_payments_scope_status_created', columnNames: ['merchant_id', 'livemode', 'status', 'created_at'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('payments', 'idx_payments_scope_status_created');
    await queryRunner.dropIndex('payments', 'idx_payments_scope_created');
  }
}
