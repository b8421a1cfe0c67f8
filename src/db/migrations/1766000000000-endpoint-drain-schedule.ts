// A failing endpoint's circuit is drained by the workers' circuit sweepers (src/webhooks/circuit.ts),
// not by a workflow per endpoint: the endpoint records when its queue is next drained (null while
// the circuit is closed; an index finds the due ones) and until when a sweeper holds it. A sweeper
// claims a due endpoint by setting both to the end of its lease (so that the drain of a process that
// died comes due again then), and sets the next drain's time when done.
//
// Frozen: the columns are written out here.
import { TableColumn, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class EndpointDrainSchedule1766000000000 implements MigrationInterface {
  name = 'EndpointDrainSchedule1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await queryRunner.hasColumn('webhook_endpoints', 'next_drain_at'))) {
      await queryRunner.addColumn('webhook_endpoints', new TableColumn({ name: 'next_drain_at', type: 'bigint', isNullable: true }));
    }
    if (!(await queryRunner.hasColumn('webhook_endpoints', 'drain_lease_until'))) {
      await queryRunner.addColumn('webhook_endpoints', new TableColumn({ name: 'drain_lease_until', type: 'bigint', isNullable: true }));
    }
    // Circuits open before this: drained at once.
    await queryRunner.query('UPDATE webhook_endpoints SET next_drain_at = failing_since WHERE failing_since IS NOT NULL AND next_drain_at IS NULL');
    const table = await queryRunner.getTable('webhook_endpoints');
    if (!table?.indices.some((index) => index.name === 'idx_webhook_endpoints_next_drain')) {
      await queryRunner.createIndex('webhook_endpoints', new TableIndex({ name: 'idx_webhook_endpoints_next_drain', columnNames: ['next_drain_at'] }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('webhook_endpoints', 'idx_webhook_endpoints_next_drain');
    await queryRunner.dropColumn('webhook_endpoints', 'drain_lease_until');
    await queryRunner.dropColumn('webhook_endpoints', 'next_drain_at');
  }
}
