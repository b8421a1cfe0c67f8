// A circuit per webhook endpoint (docs/webhooks.md, "A failing endpoint"): while an endpoint fails,
// one workflow per endpoint probes it on a backoff and its other deliveries wait, pending, behind
// that probe. The endpoint records since when it has been failing (null while it answers) and why
// it was disabled (`failing`: 3 days without a 2xx); a delivery records until when it is retried
// (null on rows written before: their creation plus the retry span) and when it last got a manual
// attempt (the Events API's retry, at most one a minute). An index finds an endpoint's pending
// deliveries oldest first.
//
// Frozen: the columns are written out here.
import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class EndpointCircuit1765900000000 implements MigrationInterface {
  name = 'EndpointCircuit1765900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await queryRunner.hasColumn('webhook_endpoints', 'failing_since'))) {
      await queryRunner.addColumn('webhook_endpoints', new TableColumn({ name: 'failing_since', type: 'bigint', isNullable: true }));
    }
    if (!(await queryRunner.hasColumn('webhook_endpoints', 'disabled_reason'))) {
      await queryRunner.addColumn('webhook_endpoints', new TableColumn({ name: 'disabled_reason', type: 'varchar', length: '20', isNullable: true }));
    }
    if (!(await queryRunner.hasColumn('webhook_deliveries', 'retry_until_ms'))) {
      await queryRunner.addColumn('webhook_deliveries', new TableColumn({ name: 'retry_until_ms', type: 'bigint', isNullable: true }));
    }
    if (!(await queryRunner.hasColumn('webhook_deliveries', 'manual_attempt_at'))) {
      await queryRunner.addColumn('webhook_deliveries', new TableColumn({ name: 'manual_attempt_at', type: 'bigint', isNullable: true }));
    }
    const table = await queryRunner.getTable('webhook_deliveries');
    if (!table?.indices.some((index) => index.name === 'idx_webhook_deliveries_endpoint_queue')) {
      await queryRunner.createIndex('webhook_deliveries', new TableIndex({ name: 'idx_webhook_deliveries_endpoint_queue', columnNames: ['endpoint_id', 'status', 'seq'] }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('webhook_deliveries', 'idx_webhook_deliveries_endpoint_queue');
    await queryRunner.dropColumn('webhook_deliveries', 'manual_attempt_at');
    await queryRunner.dropColumn('webhook_deliveries', 'retry_until_ms');
    await queryRunner.dropColumn('webhook_endpoints', 'disabled_reason');
    await queryRunner.dropColumn('webhook_endpoints', 'failing_since');
  }
}
