// Events (what was sent, for operators) and webhook delivery attempts (issue: events and webhooks).
import { Table, TableIndex, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';
import { isMysql } from './helpers/dialect';

export class WebhookEvents1763900000000 implements MigrationInterface {
  name = 'WebhookEvents1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const seqType = isMysql(queryRunner) ? 'bigint' : 'integer';
    const seq = { name: 'seq', type: seqType, isPrimary: true, isGenerated: true, generationStrategy: 'increment' as const };
    await queryRunner.createTable(new Table({
      name: 'events',
      columns: [
        seq,
        { name: 'id', type: 'varchar', length: '32' },
        { name: 'merchant_id', type: 'varchar', length: '32' },
        { name: 'livemode', type: 'boolean' },
        { name: 'type', type: 'varchar', length: '40' },
        { name: 'object_id', type: 'varchar', length: '40' },
        { name: 'payload', type: 'text' },
        { name: 'created_at', type: 'bigint' },
      ],
      uniques: [new TableUnique({ name: 'uq_events_id', columnNames: ['id'] })],
      indices: [
        new TableIndex({ name: 'idx_events_merchant', columnNames: ['merchant_id', 'seq'] }),
        new TableIndex({ name: 'idx_events_object', columnNames: ['object_id'] }),
      ],
    }));
    await queryRunner.createTable(new Table({
      name: 'webhook_attempts',
      columns: [
        seq,
        { name: 'event_id', type: 'varchar', length: '32' },
        { name: 'delivery_id', type: 'varchar', length: '64' },
        { name: 'attempt', type: 'int' },
        { name: 'endpoint', type: 'varchar', length: '2048' },
        { name: 'status_code', type: 'int', isNullable: true },
        { name: 'error', type: 'varchar', length: '255', isNullable: true },
        { name: 'latency_ms', type: 'int' },
        { name: 'attempted_at_ms', type: 'bigint' },
      ],
      indices: [new TableIndex({ name: 'idx_webhook_attempts_event', columnNames: ['event_id', 'seq'] })],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_attempts');
    await queryRunner.dropTable('events');
  }
}
