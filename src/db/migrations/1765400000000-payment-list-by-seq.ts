// Payment lists are ordered by `seq` (creation order) instead of `created_at` then id. The
// (merchant, mode) and (merchant, mode, status) indexes that end in `seq` also carry the columns
// the list filters read (status, created_at), so a page's `seq`s come from one range scan of one
// index without reading a row. The created_at indexes stay for short creation-time windows.
//
// Frozen: the column lists are written out here and nothing is imported that may change later.
import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

const INDEXES: Array<{ name: string; before: string[]; after: string[] }> = [
  { name: 'idx_payments_scope', before: ['merchant_id', 'livemode', 'seq'], after: ['merchant_id', 'livemode', 'seq', 'status', 'created_at'] },
  { name: 'idx_payments_scope_status', before: ['merchant_id', 'livemode', 'status', 'seq'], after: ['merchant_id', 'livemode', 'status', 'seq', 'created_at'] },
];

async function rebuild(queryRunner: QueryRunner, columns: (index: (typeof INDEXES)[number]) => string[]): Promise<void> {
  if (['mysql', 'mariadb'].includes(queryRunner.connection.options.type)) {
    // One statement: the table is never without the index its lists read.
    const changes = INDEXES.map((index) => `DROP INDEX \`${index.name}\`, ADD INDEX \`${index.name}\` (${columns(index).map((c) => `\`${c}\``).join(', ')})`);
    await queryRunner.query(`ALTER TABLE \`payments\` ${changes.join(', ')}`);
    return;
  }
  for (const index of INDEXES) {
    await queryRunner.dropIndex('payments', index.name);
    await queryRunner.createIndex('payments', new TableIndex({ name: index.name, columnNames: columns(index) }));
  }
}

export class PaymentListBySeq1765400000000 implements MigrationInterface {
  name = 'PaymentListBySeq1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, (index) => index.after);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await rebuild(queryRunner, (index) => index.before);
  }
}
